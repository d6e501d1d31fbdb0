/**
 * Charts offline (docs/engineering-notes.md §12): vega-lite spec → vega spec → headless vega View → SVG →
 * resvg → PNG. Text needs system fonts (Debian fonts-dejavu-core); without them resvg silently
 * draws no text, so `renderChart` checks that the font is found and warns once if it is not.
 * `renderChart` is the shared helper for every Telepath chart (the lab's report charts too).
 */
import { Resvg } from '@resvg/resvg-js';
import { existsSync } from 'node:fs';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export type { TopLevelSpec } from 'vega-lite';

export interface RenderOptions {
  /** PNG pixels per SVG pixel; chosen: 2 (sharp on screens and in PDFs) */
  scale?: number;
  /** font used for all text */
  fontFamily?: string;
  background?: string;
}

export interface RenderedChart {
  svg: string;
  png: Buffer;
}

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
let fontWarned = false;

/** Render a vega-lite spec to SVG and PNG. */
export async function renderChart(spec: TopLevelSpec, o: RenderOptions = {}): Promise<RenderedChart> {
  const fontFamily = o.fontFamily ?? 'DejaVu Sans';
  const withFont: TopLevelSpec = { ...spec, config: { font: fontFamily, ...(spec.config ?? {}) } } as TopLevelSpec;
  const view = new View(parse(compile(withFont).spec), { renderer: 'none' });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  if (!fontWarned && fontFamily === 'DejaVu Sans' && !existsSync(DEJAVU)) {
    fontWarned = true;
    console.warn(`renderChart: ${DEJAVU} not found — PNG text may be missing; install Debian fonts-dejavu-core`);
  }
  const resvg = new Resvg(svg, {
    background: o.background ?? 'white',
    fitTo: { mode: 'zoom', value: o.scale ?? 2 },
    font: { loadSystemFonts: true, defaultFontFamily: fontFamily },
  });
  return { svg, png: resvg.render().asPng() };
}

export interface HeatmapOptions {
  title: string;
  subtitle?: string;
  /** label of the row axis (default "slot i") and column axis (default "slot j") */
  rowTitle?: string;
  colTitle?: string;
  /** colour domain; default [0, 1] */
  domain?: [number, number];
  /** digits printed in each cell; default 2; cells are unlabelled above 24 rows */
  digits?: number;
  /** cell size in pixels; default 28 */
  cell?: number;
}

/** A vega-lite heatmap of a matrix with row and column labels (NaN cells are left blank). */
export function heatmapSpec(
  matrix: readonly (readonly number[])[],
  rowLabels: readonly string[],
  colLabels: readonly string[],
  o: HeatmapOptions,
): TopLevelSpec {
  const values = matrix.flatMap((row, i) =>
    row.map((v, j) => ({ row: rowLabels[i], col: colLabels[j], value: Number.isFinite(v) ? v : null })),
  );
  const digits = o.digits ?? 2;
  const cell = o.cell ?? 28;
  const rowTitle = o.rowTitle ?? 'slot i';
  const colTitle = o.colTitle ?? 'slot j';
  const x = {
    field: 'col',
    type: 'ordinal',
    sort: [...colLabels],
    title: colTitle,
    axis: { labelLimit: 300, labelAngle: -45 },
  } as const;
  const y = {
    field: 'row',
    type: 'ordinal',
    sort: [...rowLabels],
    title: rowTitle,
    axis: { labelLimit: 300 },
  } as const;
  const layers: object[] = [
    {
      mark: 'rect',
      encoding: {
        x,
        y,
        color: {
          field: 'value',
          type: 'quantitative',
          scale: { scheme: 'viridis', domain: o.domain ?? [0, 1] },
          title: null,
        },
        tooltip: [{ field: 'row' }, { field: 'col' }, { field: 'value', format: `.${digits}f` }],
      },
    },
  ];
  if (rowLabels.length <= 24) {
    layers.push({
      mark: { type: 'text', fontSize: cell <= 28 ? 9 : 11 },
      encoding: {
        x,
        y,
        text: { field: 'value', type: 'quantitative', format: `.${digits}f` },
        color: {
          condition: {
            test: `datum.value > ${((o.domain ?? [0, 1])[0] + (o.domain ?? [0, 1])[1]) / 2}`,
            value: 'black',
          },
          value: 'white',
        },
      },
    });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: o.subtitle ? { text: o.title, subtitle: o.subtitle } : o.title,
    width: cell * colLabels.length,
    height: cell * rowLabels.length,
    data: { values },
    layer: layers,
  } as TopLevelSpec;
}
