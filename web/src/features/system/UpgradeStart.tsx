// Starting an upgrade from the Updates page: "Upgrade to X" (a release from the feed) or "Upload bundle" (an
// airgapped install, or a release the feed does not list). Both ask for confirmation first, because the run
// stops the site, or its changes when the install keeps reads (reads_during_upgrade), for its duration; a refusal (409 running, 400 older release, 413 too large…) stays in the
// dialog with the API's own words.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError } from '../../api/client.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { Button, inputClass } from '../../components/ui.tsx';
import { startUpgrade, type UpgradeStarted } from './upgrade-api.ts';

type Choice = { version: string } | { bundle: File };

function describe(choice: Choice): string {
  return 'version' in choice ? `Upgrade to ${choice.version}` : `Upgrade from ${choice.bundle.name}`;
}

export function UpgradeStart({ target, disabled, keepsReads, onStarted }: { target: string | null; disabled: boolean; keepsReads: boolean; onStarted: (run: UpgradeStarted) => void }) {
  const [file, setFile] = useState<File | null>(null);
  // Bumped to empty the file input once a run started (the browser keeps the chosen name otherwise).
  const [inputKey, setInputKey] = useState(0);
  const [choice, setChoice] = useState<Choice | null>(null);
  const start = useMutation({
    mutationFn: (c: Choice) => startUpgrade(c),
    onSuccess: (run) => {
      setChoice(null);
      setFile(null);
      setInputKey((k) => k + 1);
      onStarted(run);
    },
  });
  const errors = start.error instanceof ApiError ? start.error.fieldErrors : {};
  const close = () => {
    setChoice(null);
    start.reset();
  };
  return (
    <div className="flex flex-wrap items-end gap-3">
      {target ? (
        <Button variant="primary" disabled={disabled} onClick={() => setChoice({ version: target })}>
          Upgrade to {target}
        </Button>
      ) : null}
      <div className="flex flex-wrap items-end gap-2">
        <label className="space-y-1 text-sm">
          <span className="block font-medium">Release bundle</span>
          <input key={inputKey} type="file" accept=".tar.gz,.tgz,application/gzip" className={`${inputClass} w-72`} disabled={disabled} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </label>
        <Button disabled={disabled || !file} onClick={() => file && setChoice({ bundle: file })}>
          Upload bundle
        </Button>
      </div>
      <Dialog
        open={choice !== null}
        title={choice ? `${describe(choice)}?` : ''}
        onClose={close}
        footer={<DialogActions onCancel={close} onConfirm={() => choice && start.mutate(choice)} confirmLabel="Start upgrade" busyLabel={choice && 'bundle' in choice ? 'Uploading…' : 'Starting…'} pending={start.isPending} />}
      >
        <div className="space-y-2 text-sm">
          {keepsReads ? (
            <p>
              A backup is taken first. The site keeps answering reads while the new release is installed and migrated; changes wait until it is ready (a migration this version could not read puts the site into maintenance for
              its length). A failed step rolls back to the running version.
            </p>
          ) : (
            <p>A backup is taken first. The site goes into maintenance while the new release is installed and migrated, and comes back by itself; a failed step rolls back to the running version.</p>
          )}
          <p className="text-slate-600">This page follows the run and keeps checking while the site is away.</p>
          {start.error ? (
            <p role="alert" className="text-red-700">
              {Object.keys(errors).length ? Object.entries(errors).map(([k, v]) => `${k}: ${v.join(' ')}`).join(' ') : start.error.message}
            </p>
          ) : null}
        </div>
      </Dialog>
    </div>
  );
}
