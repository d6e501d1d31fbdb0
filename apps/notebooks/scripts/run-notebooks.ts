/** Placeholder: the headless notebook runner is being written (issue 10). */
console.log('notebooks: runner not written yet');
