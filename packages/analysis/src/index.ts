/**
 * @telepath/analysis — latent subspace analysis (paper A, arXiv:2510.00494; docs/method-reference.md §3):
 * per-slot PCA, cross-capture and H_off, silhouette by slot, principal angles, linear CKA,
 * participation ratio; tables (arquero) and charts (vega-lite → SVG → PNG).
 */
export * from './slots.js';
export * from './products.js';
export * from './pca.js';
export * from './cross-capture.js';
export * from './angles.js';
export * from './cka.js';
export * from './silhouette.js';
export * from './chart.js';
export * from './analyze.js';
export * from './report.js';
