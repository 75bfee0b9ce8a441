// The dashboard's sign-in (SPEC M4): the API token, typed once, opens a session.
import { Layout } from './layout.js';

export function signInPage(error: string | null) {
  return (
    <Layout title="Sign in" page={null}>
      <h1>Sign in to fixloop</h1>
      {error ? <p class="error">{error}</p> : null}
      <form method="post" action="/sign-in">
        <label>
          API token <input type="password" name="token" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}
