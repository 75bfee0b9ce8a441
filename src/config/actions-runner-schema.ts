// The `actions` runner of the config file (issue 35 item 3): which workflow of the Task's repository is
// dispatched to resume its agent (a file name under the repository's workflows, or its numeric id), and
// how often its run is read until it completes.
import { z } from 'zod';
import { promptTemplateSchema } from './runner-schema.js';

/** How often a dispatched workflow run is read by default, in seconds. */
export const DEFAULT_ACTIONS_POLL_SECONDS = 30;

export const actionsRunnerSchema = z.strictObject({
  kind: z.literal('actions'),
  /**
   * `fixloop-agent.yml` (a file directly in the repository's workflows folder) or a workflow's numeric
   * id; required unless every Work is on GitLab (runner-config.ts), whose pipelines need none.
   */
  workflow: z
    .union([z.string(), z.int().positive()])
    .transform(String)
    .pipe(
      z
        .string()
        .regex(
          /^(?:[\w.-]+\.ya?ml|[1-9]\d{0,19})$/,
          'must be a workflow file name like "fixloop-agent.yml", or its numeric id',
        ),
    )
    .optional(),
  /** Seconds between two reads of the dispatched workflow run (1–3600). */
  pollSeconds: z.int().min(1).max(3600).default(DEFAULT_ACTIONS_POLL_SECONDS),
  /** The operator's prompt template, as for the command and http runners: the frame the workflow is given. */
  promptTemplate: promptTemplateSchema.optional(),
});
