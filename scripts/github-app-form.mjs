// Prints the HTML page of GitHub's App manifest flow for app.yml: open it in a browser signed in to
// GitHub and submit; GitHub creates the App and sends the browser to app.yml's redirect_url with a
// code, which `POST /app-manifests/{code}/conversions` trades for the App's id, key and webhook secret.
// Usage: node scripts/github-app-form.mjs [organization] > app.html
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const manifest = parse(readFileSync(new URL('../app.yml', import.meta.url), 'utf8'));
const org = process.argv[2];
const action = org
  ? `https://github.com/organizations/${encodeURIComponent(org)}/settings/apps/new`
  : 'https://github.com/settings/apps/new';
const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
process.stdout.write(`<!doctype html>
<meta charset="utf-8">
<title>Create the fixloop GitHub App</title>
<form action="${attr(action)}" method="post">
  <input type="hidden" name="manifest" value="${attr(JSON.stringify(manifest))}">
  <p>Creates the GitHub App of app.yml (webhook: ${attr(manifest.hook_attributes.url)}).</p>
  <button type="submit">Create the GitHub App</button>
</form>
`);
