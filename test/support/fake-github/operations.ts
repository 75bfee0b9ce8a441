// The GitHub REST operations the fake answers, as "METHOD /path/template" exactly as GitHub's
// OpenAPI description names them. scripts/extract-github-schemas.ts extracts the response schemas
// of these (and only these) into test/fixtures/github-openapi/responses.json.

export const FAKE_OPERATIONS = [
  'GET /repos/{owner}/{repo}/pulls/{pull_number}',
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
  'GET /repos/{owner}/{repo}/commits/{ref}/status',
  'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
  'POST /repos/{owner}/{repo}/statuses/{sha}',
  'GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks',
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}',
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs',
  // Issue 35 item 3: the actions runner dispatches a workflow (return_run_details) and follows its run.
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
  // …and cancels it when fixloop ends the run first (its window, a person's cancel).
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
  // Issue 35: the mention runner approves the workflow runs of its agent's push that wait for approval.
  'GET /repos/{owner}/{repo}/actions/runs',
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/approve',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  // Issue 36 item 4: an issue for a red base (the Work's `baseIssue`), closed when the base heals.
  'POST /repos/{owner}/{repo}/issues',
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
  // Issue 36: a bot review's inline comments, for the fingerprint of its findings.
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments',
  'GET /repos/{owner}/{repo}/compare/{basehead}',
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
  'GET /repos/{owner}/{repo}/issues/{issue_number}/events',
  'GET /user',
  'GET /app',
  'GET /repos/{owner}/{repo}/installation',
  'POST /app/installations/{installation_id}/access_tokens',
  // V3: the manifest flow's last step (no credentials: the one-hour code is the credential).
  'POST /app-manifests/{code}/conversions',
  // Issue 36: a branch behind its base brought up to date (merges the base in, a new head).
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch',
] as const;

export type FakeOperation = (typeof FAKE_OPERATIONS)[number];
