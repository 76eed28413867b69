/** @jsxImportSource hono/jsx/dom */
/**
 * A small SVG chart drawn by our own code (no library): one polyline per series over shared
 * buckets, with a legend and the same figures as a table for screen readers and keyboard users.
 */

import { formValues } from './ui.js';

/** A chart's range: per hour or day, from and to (dates, UTC); unset: the API's default. */
export interface ChartRange {
  interval: 'hour' | 'day';
  from?: string;
  to?: string;
}

/** The form that picks a chart's range (`id` prefixes its fields' ids). */
export function RangeForm(props: { id: string; range: ChartRange; onRange: (r: ChartRange) => void }) {
  const { id, range } = props;
  return (
    <form
      class="inline"
      onSubmit={(e: Event) => {
        const v = formValues(e);
        props.onRange({
          interval: v.interval === 'hour' ? 'hour' : 'day',
          from: v.from || undefined,
          to: v.to || undefined,
        });
      }}
    >
      <label for={`${id}-interval`}>Per</label>
      <select id={`${id}-interval`} name="interval">
        <option value="day" selected={range.interval === 'day'}>
          day
        </option>
        <option value="hour" selected={range.interval === 'hour'}>
          hour
        </option>
      </select>
      <label for={`${id}-from`}>From</label>
      <input id={`${id}-from`} name="from" type="date" value={range.from ?? ''} />
      <label for={`${id}-to`}>To</label>
      <input id={`${id}-to`} name="to" type="date" value={range.to ?? ''} />
      <button type="submit">Show</button>
    </form>
  );
}

export interface ChartSeries {
  name: string;
  color: string;
  values: number[];
}

const W = 640;
const H = 180;
const PAD = { left: 44, right: 8, top: 8, bottom: 22 };

export function LineChart(props: { title: string; labels: string[]; series: ChartSeries[]; id: string }) {
  const max = Math.max(1, ...props.series.flatMap((s) => s.values));
  const n = props.labels.length;
  const x = (i: number) => PAD.left + (n <= 1 ? 0 : (i * (W - PAD.left - PAD.right)) / (n - 1));
  const y = (v: number) => H - PAD.bottom - (v * (H - PAD.top - PAD.bottom)) / max;
  const ticks = [0, Math.round(max / 2), max];
  const every = Math.max(1, Math.ceil(n / 6));
  return (
    <figure class="chart" aria-labelledby={`${props.id}-cap`}>
      <figcaption id={`${props.id}-cap`}>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${props.title}: ${props.series.map((s) => `${s.name} ${s.values.reduce((a, b) => a + b, 0)} in all`).join(', ')}`}
      >
        {ticks.map((t) => (
          <g>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} class="grid" />
            <text x={PAD.left - 4} y={y(t) + 4} text-anchor="end" class="tick">
              {t}
            </text>
          </g>
        ))}
        {props.labels.map((l, i) =>
          i % every === 0 ? (
            <text x={x(i)} y={H - 6} text-anchor="middle" class="tick">
              {l}
            </text>
          ) : null,
        )}
        {props.series.map((s) => (
          <g>
            <polyline
              fill="none"
              stroke={s.color}
              stroke-width="2"
              points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
            />
            {/* a dot per bucket while they are few enough to tell apart (a single bucket has no line) */}
            {n <= 60
              ? s.values.map((v, i) => <circle cx={x(i).toFixed(1)} cy={y(v).toFixed(1)} r="3" fill={s.color} />)
              : null}
          </g>
        ))}
      </svg>
      <p class="legend">
        {props.series.map((s) => (
          <span>
            <span class="swatch" style={`background:${s.color}`} /> {s.name}: {s.values.reduce((a, b) => a + b, 0)}
          </span>
        ))}
      </p>
      <details>
        <summary>The figures as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Bucket</th>
              {props.series.map((s) => (
                <th scope="col">{s.name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.labels.map((l, i) => (
              <tr>
                <th scope="row">{l}</th>
                {props.series.map((s) => (
                  <td>{s.values[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** A bucket's start as a short UTC label. */
export const bucketLabel = (iso: string, interval: 'hour' | 'day') =>
  interval === 'day' ? iso.slice(5, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 13)}h`;
