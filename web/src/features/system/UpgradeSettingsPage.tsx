// Settings → Updates (deployment admins): where releases come from (feed URL, channel), whether upgrades start by
// themselves, airgapped mode, and the SMTP account the upgrade digest is mailed through. Only changed fields are
// sent; a 400 puts the API's message on its field and saves nothing.
import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api/client.ts';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { Loading } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Button, PageHeader, inputClass } from '../../components/ui.tsx';
import { UnavailableOr } from './Unavailable.tsx';
import { AVAILABLE_KEY, fetchSettings, saveSettings, SETTINGS_KEY, type UpgradeSettings } from './upgrade-api.ts';

interface Draft {
  feed_url: string;
  channel: UpgradeSettings['channel'];
  automatic_updates: boolean;
  airgapped: boolean;
  smtp_host: string;
  smtp_port: string;
  smtp_tls: UpgradeSettings['smtp_tls'];
  smtp_user: string;
  smtp_password: string;
  mail_from: string;
  digest_recipients: string;
}

function toDraft(s: UpgradeSettings): Draft {
  return { ...s, smtp_port: String(s.smtp_port), smtp_password: '', digest_recipients: s.digest_recipients.join('\n') };
}

/** The fields that differ from what is saved; a port that is not a number goes as typed, for the API to name. */
function changes(d: Draft, s: UpgradeSettings): Record<string, unknown> {
  const port = /^\d+$/.test(d.smtp_port.trim()) ? Number(d.smtp_port.trim()) : d.smtp_port;
  const recipients = d.digest_recipients.split(/[\n,]/).map((r) => r.trim()).filter(Boolean);
  const out: Record<string, unknown> = {};
  for (const key of ['feed_url', 'channel', 'automatic_updates', 'airgapped', 'smtp_host', 'smtp_tls', 'smtp_user', 'mail_from'] as const) {
    if (d[key] !== s[key]) out[key] = d[key];
  }
  if (port !== s.smtp_port) out.smtp_port = port;
  if (recipients.join('\n') !== s.digest_recipients.join('\n')) out.digest_recipients = recipients;
  if (d.smtp_password !== '') out.smtp_password = d.smtp_password;
  return out;
}

function Text({ id, label, hint, value, errors, onChange, type = 'text' }: { id: string; label: string; hint?: string; value: string; errors?: string[]; onChange: (v: string) => void; type?: string }) {
  return (
    <FieldShell id={id} label={label} hint={hint} errors={errors}>
      <input id={id} type={type} className={inputClass} value={value} aria-invalid={errors ? true : undefined} onChange={(e) => onChange(e.target.value)} />
    </FieldShell>
  );
}

export default function UpgradeSettingsPage() {
  const client = useQueryClient();
  const toast = useToast();
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: fetchSettings, retry: false });
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (settings.data && !draft) setDraft(toDraft(settings.data));
  }, [settings.data, draft]);
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => saveSettings(body),
    onSuccess: (s) => {
      client.setQueryData(SETTINGS_KEY, s);
      setDraft(toDraft(s));
      void client.invalidateQueries({ queryKey: AVAILABLE_KEY });
      toast.show({ message: 'Update settings saved.', tone: 'success' });
    },
  });
  if (settings.isLoading || (settings.data && !draft)) return <Loading />;
  if (settings.error) return <UnavailableOr error={settings.error} what="Update settings are" retry={() => void settings.refetch()} />;
  const s = settings.data!;
  const d = draft!;
  const set = (patch: Partial<Draft>) => setDraft({ ...d, ...patch });
  const errors = save.error instanceof ApiError ? save.error.fieldErrors : {};
  const pending = changes(d, s);
  return (
    <div className="max-w-3xl space-y-4">
      <PageHeader title="Update settings" subtitle="Where releases come from, automatic updates, and the digest mail about upgrades." />
      <form
        aria-label="Update settings"
        className="space-y-5 rounded-lg border border-slate-200 bg-white p-4"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(pending);
        }}
      >
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Releases</legend>
          <Text id="up-feed" label="Release feed URL" hint="A JSON list of releases (https://, or http:// to a host on the outbound allow-list). Empty for none." value={d.feed_url} errors={errors.feed_url} onChange={(v) => set({ feed_url: v })} />
          <FieldShell id="up-channel" label="Channel" errors={errors.channel}>
            <select id="up-channel" className={`${inputClass} w-56`} value={d.channel} onChange={(e) => set({ channel: e.target.value as Draft['channel'] })}>
              <option value="stable">Stable releases only</option>
              <option value="any">Pre-releases too</option>
            </select>
          </FieldShell>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={d.automatic_updates} onChange={(e) => set({ automatic_updates: e.target.checked })} />
            Automatic updates (upgrade to the newest applicable release after the daily check)
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={d.airgapped} onChange={(e) => set({ airgapped: e.target.checked })} />
            Airgapped (no release check, no automatic updates: upgrade by bundle upload only)
          </label>
          {errors.automatic_updates || errors.airgapped ? <p role="alert" className="text-sm text-red-700">{[...(errors.automatic_updates ?? []), ...(errors.airgapped ?? [])].join(' ')}</p> : null}
        </fieldset>
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Digest mail</legend>
          <div className="grid gap-3 sm:grid-cols-[1fr_8rem_10rem]">
            <Text id="up-smtp-host" label="SMTP host" value={d.smtp_host} errors={errors.smtp_host} onChange={(v) => set({ smtp_host: v })} />
            <Text id="up-smtp-port" label="Port" value={d.smtp_port} errors={errors.smtp_port} onChange={(v) => set({ smtp_port: v })} />
            <FieldShell id="up-smtp-tls" label="TLS" errors={errors.smtp_tls}>
              <select id="up-smtp-tls" className={inputClass} value={d.smtp_tls} onChange={(e) => set({ smtp_tls: e.target.value as Draft['smtp_tls'] })}>
                <option value="starttls">STARTTLS</option>
                <option value="tls">TLS</option>
                <option value="none">None</option>
              </select>
            </FieldShell>
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <Text id="up-smtp-user" label="SMTP user" value={d.smtp_user} errors={errors.smtp_user} onChange={(v) => set({ smtp_user: v })} />
            <Text id="up-smtp-password" type="password" label="SMTP password" hint={s.smtp_password_set ? 'A password is set; type a new one to replace it.' : 'No password set.'} value={d.smtp_password} errors={errors.smtp_password} onChange={(v) => set({ smtp_password: v })} />
          </div>
          <Text id="up-mail-from" label="From address" value={d.mail_from} errors={errors.mail_from} onChange={(v) => set({ mail_from: v })} />
          <FieldShell id="up-recipients" label="Digest recipients" hint="One address per line: told about automatic upgrades, failed upgrades and a failed restore." errors={errors.digest_recipients}>
            <textarea id="up-recipients" rows={3} className={inputClass} value={d.digest_recipients} aria-invalid={errors.digest_recipients ? true : undefined} onChange={(e) => set({ digest_recipients: e.target.value })} />
          </FieldShell>
        </fieldset>
        {save.error && !Object.keys(errors).length ? <p role="alert" className="text-sm text-red-700">{save.error.message}</p> : null}
        <Button type="submit" variant="primary" disabled={save.isPending || Object.keys(pending).length === 0}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
      </form>
    </div>
  );
}
