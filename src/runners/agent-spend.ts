// What an agent CLI's own JSON output says it spent (SPEC K6, L1): cost and tokens, read from the
// shapes the CLIs print (Gemini CLI's `--output-format json` object, OpenCode's `run --format json`
// events, the Claude-Code-compatible stream JSON of Claude Code and Amp). A run's agent reports its
// spend with `report_spend`; this reading only tells people, in the run log, what the CLI printed
// (decision 0065), so nothing is counted twice.

export interface AgentSpend {
  /** US dollars, when the CLI prints a cost (OpenCode, Claude Code); null when it prints tokens only. */
  costUsd: number | null;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from a cache (part of, or beside, `inputTokens` as the CLI counts them). */
  cachedTokens: number;
  /** The session (thread) the CLI says it ran, when it says. */
  sessionId: string | null;
}

export type SpendReader = (stdout: string) => AgentSpend | null;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};

/** Each line of the output that is a JSON object (JSONL); anything else (a warning, a cut) is skipped. */
function jsonLines(stdout: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      out.push(obj(JSON.parse(t)));
    } catch {
      // not a whole JSON line
    }
  }
  return out;
}

/**
 * Gemini CLI 0.61, `--output-format json`: one pretty-printed object at the end,
 * `{ session_id, response, stats: { models: { <name>: { tokens: { prompt, candidates, cached, … } } } } }`.
 * No cost is printed.
 */
export const geminiSpend: SpendReader = (stdout) => {
  // The object is the last thing printed; it starts at a line that is only `{`.
  const at = stdout.lastIndexOf('\n{\n');
  const text = at === -1 ? stdout.trimStart() : stdout.slice(at + 1);
  let v: Record<string, unknown>;
  try {
    v = obj(JSON.parse(text.slice(0, text.lastIndexOf('}') + 1)));
  } catch {
    return null;
  }
  const models = obj(obj(v.stats).models);
  if (Object.keys(models).length === 0 && str(v.session_id) === null) return null;
  const spend: AgentSpend = {
    costUsd: null,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    sessionId: str(v.session_id),
  };
  for (const m of Object.values(models)) {
    const t = obj(obj(m).tokens);
    spend.inputTokens += num(t.prompt);
    spend.outputTokens += num(t.candidates) + num(t.thoughts);
    spend.cachedTokens += num(t.cached);
  }
  return spend;
};

/**
 * OpenCode 1.18, `run --format json`: JSONL events `{ type, timestamp, sessionID, part }`; each
 * `step_finish` part carries that step's `cost` (US dollars) and `tokens { input, output, reasoning,
 * cache { read, write } }`.
 */
export const opencodeSpend: SpendReader = (stdout) => {
  let spend: AgentSpend | null = null;
  for (const e of jsonLines(stdout)) {
    spend ??= { costUsd: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, sessionId: null };
    spend.sessionId ??= str(e.sessionID);
    if (e.type !== 'step_finish') continue;
    const part = obj(e.part);
    const t = obj(part.tokens);
    spend.costUsd = (spend.costUsd ?? 0) + num(part.cost);
    spend.inputTokens += num(t.input);
    spend.outputTokens += num(t.output) + num(t.reasoning);
    spend.cachedTokens += num(obj(t.cache).read);
  }
  return spend;
};

/**
 * Claude-Code-compatible stream JSON (Claude Code `--output-format stream-json`, Amp `--stream-json`):
 * `assistant` events carry their message's `usage`; the final `result` may carry the run's `usage` and
 * `total_cost_usd`, which then win over the sum of the messages.
 */
export const streamJsonSpend: SpendReader = (stdout) => {
  let spend: AgentSpend | null = null;
  const seen = new Set<string>();
  let final: Record<string, unknown> | null = null;
  for (const e of jsonLines(stdout)) {
    if (typeof e.type !== 'string') continue;
    spend ??= { costUsd: null, inputTokens: 0, outputTokens: 0, cachedTokens: 0, sessionId: null };
    spend.sessionId ??= str(e.session_id);
    if (e.type === 'result') final = e;
    if (e.type !== 'assistant') continue;
    const message = obj(e.message);
    // A message streamed in several events repeats its usage: count each message once.
    const id = str(message.id);
    if (id !== null) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    addUsage(spend, obj(message.usage));
  }
  if (spend && final) {
    const usage = obj(final.usage);
    if (Object.keys(usage).length > 0) {
      spend.inputTokens = 0;
      spend.outputTokens = 0;
      spend.cachedTokens = 0;
      addUsage(spend, usage);
    }
    if (typeof final.total_cost_usd === 'number') spend.costUsd = num(final.total_cost_usd);
  }
  return spend;
};

function addUsage(spend: AgentSpend, u: Record<string, unknown>): void {
  spend.inputTokens += num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens);
  spend.outputTokens += num(u.output_tokens);
  spend.cachedTokens += num(u.cache_read_input_tokens);
}

/** One line for the run log: what the CLI's output says it spent. */
export function spendLine(s: AgentSpend): string {
  const cost = s.costUsd === null ? 'no cost printed' : `$${s.costUsd.toFixed(4)}`;
  return `[fixloop: the agent's output says: ${cost}, ${s.inputTokens} input tokens (${s.cachedTokens} cached), ${s.outputTokens} output tokens${s.sessionId ? `, session ${s.sessionId}` : ''}]\n`;
}
