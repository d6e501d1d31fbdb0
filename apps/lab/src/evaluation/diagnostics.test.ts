import { SPECIAL_TOKENS, type Generation } from '@telepath/core';
import { describe, expect, it } from 'vitest';
import { diagnosticRates, emptyDiagnostics, sumDiagnostics, tallyDiagnosis } from './diagnostics.js';
import { reasoningCappedOf } from './evaluate.js';

const { sep, eos } = SPECIAL_TOKENS;
const gen = (text: string, reasoningKind: Generation['reasoningKind'], reasoningCapped?: boolean): Generation => ({
  id: 'q',
  answer: '',
  text,
  reasoningLength: 3,
  reasoningKind,
  ...(reasoningCapped !== undefined ? { reasoningCapped } : {}),
});
const noChain = { chain: null, agrees: null } as const;

describe('reasoning cut by its cap', () => {
  it('a written chain is capped when it reached the token cap before the separator, not when it stopped itself', () => {
    expect(reasoningCappedOf(gen(`1+2=3 [3 4] 3+4=7`, 'tokens'))).toBe(true);
    expect(reasoningCappedOf(gen(`1+2=3 ${sep} 3`, 'tokens'))).toBe(false); // the answer was cut, not the chain
    expect(reasoningCappedOf(gen(`1+2=3 ${eos}`, 'tokens'))).toBe(false); // ended without an answer, by itself
    expect(reasoningCappedOf(gen(`${sep} 7`, 'none'))).toBe(false);
  });

  it('a latent chain is capped when its method says so; methods with a fixed count say nothing and are not', () => {
    expect(reasoningCappedOf(gen(`${sep} 7 ${eos}`, 'latents', true))).toBe(true);
    expect(reasoningCappedOf(gen(`${sep} 7 ${eos}`, 'latents', false))).toBe(false);
    expect(reasoningCappedOf(gen(`${sep} 7`, 'latents'))).toBe(false);
  });

  it('is counted per sample, added over seeds, and unknown where a seed did not record it', () => {
    const d = emptyDiagnostics();
    tallyDiagnosis(d, noChain, false, true);
    tallyDiagnosis(d, noChain, true, false);
    tallyDiagnosis(d, noChain, true, true);
    tallyDiagnosis(d, noChain, false, false);
    expect(d).toMatchObject({ total: 4, hitCap: 2, reasoningCapped: 2 });
    expect(diagnosticRates(d).reasoningCapped).toBe(0.5);
    expect(sumDiagnostics([d, d]).reasoningCapped).toBe(4);
    const { reasoningCapped: _r, ...old } = d; // a record written before the count existed
    expect(sumDiagnostics([d, old]).reasoningCapped).toBeNull();
    expect(Number.isNaN(diagnosticRates(old).reasoningCapped)).toBe(true);
  });
});
