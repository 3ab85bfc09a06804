// Entry: query client, router, toasts. Only the shell is in this chunk; every page is loaded on demand.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { ApiError } from './api/client.ts';
import { createAppRouter } from './app/router.tsx';
import { ToastProvider } from './components/Toasts.tsx';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; network trouble and 5xx get one retry.
      retry: (count, error) => count < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});
const router = createAppRouter(queryClient);

// A request answered 401 (session ended elsewhere) sends the tab to sign in, then back here.
window.addEventListener('cairn:unauthorized', () => {
  if (router.state.location.pathname === '/login') return;
  queryClient.clear();
  void router.navigate({ to: '/login', search: { next: router.state.location.href } });
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);
