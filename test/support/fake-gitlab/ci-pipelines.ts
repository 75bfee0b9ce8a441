// The fake GitLab's pipeline creation (issue 35 item 6), as GitLab's Pipelines API documents it:
// `POST /projects/:id/pipeline` with `ref` (a branch or tag of the project) and `variables`, an array of
// `{ key, value, variable_type }` (variable_type `env_var` by default, or `file`), answers 201 with the
// pipeline (source `api`, status `created`); a ref the project does not have answers 400
// `{ message: { base: ['Reference not found'] } }`, a malformed variable 400 `{ error }`. The variables
// are kept on the pipeline (`state.pipelineVariables`) for the test to read; a test moves the pipeline
// on with `fake.setPipelineStatus`.
import { isoNow, nextId, type FakeGitLabState, type GlPipeline, type GlProject, type GlUser } from './state.js';

export interface FakePipelineVariable {
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
}

/** The variables each created pipeline was given, by pipeline id (created on first use). */
export function pipelineVariables(state: FakeGitLabState): Record<number, FakePipelineVariable[]> {
  const s = state as FakeGitLabState & { pipelineVariables?: Record<number, FakePipelineVariable[]> };
  return (s.pipelineVariables ??= {});
}

type Answer = { status: number; body: unknown };

/** GitLab's rule for a variable's key: letters, digits and underscores, at most 255. */
const KEY = /^[A-Za-z0-9_]{1,255}$/;

export function createPipeline(
  state: FakeGitLabState,
  p: GlProject,
  caller: GlUser,
  input: Record<string, unknown>,
  o: { iid: number; body: (pipeline: GlPipeline) => unknown },
): Answer {
  const ref = input.ref;
  if (typeof ref !== 'string' || ref === '') return { status: 400, body: { error: 'ref is missing' } };
  const raw = input.variables ?? [];
  if (!Array.isArray(raw)) return { status: 400, body: { error: 'variables is invalid' } };
  const variables: FakePipelineVariable[] = [];
  for (const v of raw as unknown[]) {
    const { key, value, variable_type: type = 'env_var' } = (v ?? {}) as Record<string, unknown>;
    if (typeof key !== 'string' || !KEY.test(key) || typeof value !== 'string')
      return { status: 400, body: { error: 'variables[key], variables[value] are invalid' } };
    if (type !== 'env_var' && type !== 'file')
      return { status: 400, body: { error: 'variables[variable_type] does not have a valid value' } };
    variables.push({ key, value, variable_type: type });
  }
  // A branch of the project, or the source branch of one of its merge requests (at its head).
  const mr = Object.values(state.mergeRequests).find((m) => m.sourceProjectId === p.id && m.sourceBranch === ref);
  const sha = p.branches[ref]?.sha ?? mr?.headSha ?? null;
  if (sha === null) return { status: 400, body: { message: { base: ['Reference not found'] } } };
  const now = isoNow(state);
  const pipeline: GlPipeline = {
    id: nextId(state),
    iid: o.iid,
    projectId: p.id,
    sha,
    ref,
    status: 'created',
    source: 'api',
    userId: caller.id,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    finishedAt: null,
  };
  state.pipelines[pipeline.id] = pipeline;
  pipelineVariables(state)[pipeline.id] = variables;
  return { status: 201, body: o.body(pipeline) };
}
