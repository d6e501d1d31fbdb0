/**
 * Ctrl-C for long commands (`run`, `worker`): the first asks to stop after the current step (the
 * work polls `requested()` and checkpoints), a second quits at once with 130. `release()` removes
 * the handler when the work is done.
 */
export interface StopRequest {
  requested: () => boolean;
  release: () => void;
}

export function stopOnCtrlC(): StopRequest {
  let stopRequested = false;
  const onSigint = () => {
    if (stopRequested) process.exit(130);
    stopRequested = true;
    console.error('\n[telepath] stopping after the current step (Ctrl-C again to quit now)…');
  };
  process.on('SIGINT', onSigint);
  return { requested: () => stopRequested, release: () => process.off('SIGINT', onSigint) };
}
