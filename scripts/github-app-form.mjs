// Superseded by fixloop's own setup (decision 0050): the page at /setup, or `fixloop setup github`,
// which sends app.yml with the App name you pick and your FIXLOOP_PUBLIC_URL, checks GitHub's state
// on the way back and stores the App's credentials (docs/setup-github.md). Kept so that older
// instructions still work: `node scripts/github-app-form.mjs [organization]` runs
// `fixloop setup github [--org organization]`, which writes the page to open in a browser.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const org = process.argv[2];
const cli = fileURLToPath(new URL('../bin/fixloop.mjs', import.meta.url));
const r = spawnSync(process.execPath, [cli, 'setup', 'github', ...(org ? ['--org', org] : [])], { stdio: 'inherit' });
process.exit(r.status ?? 1);
