// A strict parser of the Prometheus text exposition format (0.0.4), for tests of GET /metrics: every
// line must be a HELP, a TYPE or a sample of a family declared before it; names, label sets and
// values must be well formed; a series may appear once; a histogram's buckets must be cumulative and
// end in +Inf equal to its _count. Anything else throws, naming the line.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

function parseValue(text: string, line: number | string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  // Prometheus reads values with Go's ParseFloat, which takes NaN in any case (prom-client writes "Nan").
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value ${text}`);
  return Number(text);
}

/** `{a="x",b="y\"z"}` from position `at`; returns the labels and the position after `}`. */
function parseLabels(s: string, at: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    if (s[i] === '}') return { labels, end: i + 1 };
    const eq = s.indexOf('=', i);
    if (eq < 0) throw new Error(`line ${line}: label without '='`);
    const name = s.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`line ${line}: label ${name} twice`);
    if (s[eq + 1] !== '"') throw new Error(`line ${line}: label value not quoted`);
    let v = '';
    let j = eq + 2;
    for (; j < s.length && s[j] !== '"'; j++) {
      if (s[j] === '\\') {
        const e = s[++j];
        if (e === 'n') v += '\n';
        else if (e === '\\' || e === '"') v += e;
        else throw new Error(`line ${line}: bad escape \\${e}`);
      } else v += s[j];
    }
    if (j >= s.length) throw new Error(`line ${line}: unterminated label value`);
    labels[name] = v;
    i = j + 1;
    if (s[i] === ',') i++;
    else if (s[i] !== '}') throw new Error(`line ${line}: expected ',' or '}' after a label`);
  }
}

/** The family a sample name belongs to: itself, or without a suffix its type allows. */
function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  const f = m ? families.get(m[1]!) : undefined;
  if (!f) return undefined;
  if (f.type === 'histogram' || (f.type === 'summary' && m![2] !== 'bucket')) return f;
  return undefined;
}

export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      const f = families.get(name) ?? { name, help: '', type: 'untyped' as MetricType, samples: [] };
      families.set(name, f);
      if (kind === 'HELP') {
        if (f.help !== '') throw new Error(`line ${line}: second HELP for ${name}`);
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      } else {
        if (!TYPES.includes(rest as MetricType)) throw new Error(`line ${line}: bad type ${rest}`);
        if (f.samples.length > 0) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        f.type = rest as MetricType;
      }
      return;
    }
    const nameEnd = raw.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`line ${line}: not a sample: ${raw}`);
    const name = raw.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
    let labels: Record<string, string> = {};
    let rest = raw.slice(nameEnd);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(raw, nameEnd, line);
      labels = parsed.labels;
      rest = raw.slice(parsed.end);
    }
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2)
      throw new Error(`line ${line}: expected a value (and a timestamp): ${raw}`);
    const value = parseValue(parts[0]!, `${line} (${raw})`);
    const family = familyOf(families, name);
    if (!family) throw new Error(`line ${line}: sample ${name} of no declared family`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`line ${line}: series ${key} twice`);
    seen.add(key);
    family.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, Sample[]>();
  const keyOf = (l: Record<string, string>) =>
    JSON.stringify(
      Object.entries(l)
        .filter(([k]) => k !== 'le')
        .sort(),
    );
  for (const s of f.samples.filter((x) => x.name === `${f.name}_bucket`)) {
    if (s.labels.le === undefined) throw new Error(`${f.name}: a bucket without le`);
    series.set(keyOf(s.labels), [...(series.get(keyOf(s.labels)) ?? []), s]);
  }
  for (const [key, buckets] of series) {
    const sorted = [...buckets].sort((a, b) => parseValue(a.labels.le!, 0) - parseValue(b.labels.le!, 0));
    sorted.reduce((prev, b) => {
      if (b.value < prev) throw new Error(`${f.name}${key}: buckets are not cumulative`);
      return b.value;
    }, 0);
    const inf = sorted.at(-1)!;
    if (inf.labels.le !== '+Inf') throw new Error(`${f.name}${key}: no +Inf bucket`);
    const count = f.samples.find((s) => s.name === `${f.name}_count` && keyOf(s.labels) === key);
    if (!count || count.value !== inf.value) throw new Error(`${f.name}${key}: _count is not the +Inf bucket`);
  }
}

/** The value of the one sample `name` whose labels include `labels`; undefined when there is none. */
export function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = familyOf(families, name);
  const matches = (family?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matches.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matches.length} series`);
  return matches[0]?.value;
}
