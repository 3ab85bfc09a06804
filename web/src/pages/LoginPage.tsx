// Sign in with username and password (the session cookie); then back to the page that sent us here.
import { useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, post } from '../api/client.ts';
import { loginRoute } from '../app/routes.ts';
import { Button, inputClass } from '../components/ui.tsx';
import { errorMessage } from '../components/states.tsx';

export default function LoginPage() {
  const { next } = loginRoute.useSearch();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await post('/api/auth/login/', { username, password });
      client.clear();
      await navigate({ to: next ?? '/' });
    } catch (err) {
      setError(err instanceof ApiError && err.status === 400 ? 'Enter a username and a password.' : errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-100 p-4">
      <form onSubmit={submit} className="w-full max-w-sm space-y-4 rounded-xl bg-white p-6 shadow" aria-labelledby="login-title">
        <h1 id="login-title" className="text-xl font-semibold">
          Sign in to Cairn
        </h1>
        {error ? (
          <p role="alert" className="rounded bg-red-50 p-2 text-sm text-red-800">
            {error}
          </p>
        ) : null}
        <label className="block text-sm font-medium">
          Username
          <input className={`${inputClass} mt-1`} name="username" autoComplete="username" required autoFocus value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label className="block text-sm font-medium">
          Password
          <input className={`${inputClass} mt-1`} name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <Button type="submit" variant="primary" disabled={busy} className="w-full justify-center">
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
    </main>
  );
}
