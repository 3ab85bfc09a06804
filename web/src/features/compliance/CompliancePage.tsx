// /compliance: the tenant's rules (the generic list of compliance.rule) and its open violations, filtered by rule
// and object type, paged, with Evaluate now.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get, post } from '../../api/client.ts';
import { useModelInfo } from '../../api/hooks.ts';
import type { Page } from '../../api/types.ts';
import { paths } from '../../app/paths.ts';
import { Empty, Loading } from '../../components/states.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Button, PageHeader, inputClass } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { ModelList, type ListState } from '../../pages/list/ModelList.tsx';
import type { Violation } from '../devices/ComplianceTab.tsx';

const PAGE = 50;
const LIST_PATH: Record<string, string> = { 'dcim.device': '/api/devices/', 'virtualization.virtualmachine': '/api/virtual-machines/' };

/** Names of the objects on one page of violations: one list call per object type, filtered by id. */
function useObjectNames(violations: Violation[] | undefined) {
  const byType = new Map<string, string[]>();
  for (const v of violations ?? []) byType.set(v.object_type, [...new Set([...(byType.get(v.object_type) ?? []), v.object_id])]);
  const wanted = [...byType].filter(([type]) => LIST_PATH[type]);
  return useQuery({
    queryKey: ['compliance-names', wanted],
    queryFn: async () => {
      const names = new Map<string, string>();
      for (const [type, ids] of wanted) {
        const page = await get<Page>(LIST_PATH[type]!, { id: ids, limit: ids.length });
        for (const row of page.results) names.set(row.id, row.display);
      }
      return names;
    },
    enabled: wanted.length > 0,
  });
}
const TYPES = [
  { value: 'dcim.device', label: 'Devices' },
  { value: 'virtualization.virtualmachine', label: 'Virtual machines' },
];

export default function CompliancePage() {
  const client = useQueryClient();
  const toast = useToast();
  const rules = useModelInfo('compliance.rule');
  const [ruleState, setRuleState] = useState<ListState>({});
  const [rule, setRule] = useState('');
  const [type, setType] = useState('');
  const [offset, setOffset] = useState(0);
  const query = { rule: rule || undefined, object_type: type || undefined, limit: PAGE, offset };
  const violations = useQuery({ queryKey: ['compliance-violations', query], queryFn: () => get<{ count: number; results: Violation[] }>('/api/compliance/violations/', query) });
  const ruleOptions = useQuery({ queryKey: ['list', '/api/compliance/rules/', { limit: 500 }], queryFn: () => get<Page>('/api/compliance/rules/', { limit: 500 }) });
  const evaluate = useMutation({
    mutationFn: () => post<{ rules: number; violations: number }>('/api/compliance/evaluate/'),
    onSuccess: (r) => {
      void client.invalidateQueries({ queryKey: ['compliance-violations'] });
      void client.invalidateQueries({ queryKey: ['jobs'] });
      toast.show({ message: `Evaluated ${r.rules} ${r.rules === 1 ? 'rule' : 'rules'}: ${r.violations} ${r.violations === 1 ? 'violation' : 'violations'}.`, tone: 'success' });
    },
    onError: (err) => toast.show({ message: err.message, tone: 'error' }),
  });
  const names = useObjectNames(violations.data?.results);
  const count = violations.data?.count ?? 0;
  return (
    <div className="space-y-6">
      <PageHeader
        title="Compliance"
        actions={
          rules.data?.can.change ? (
            <Button onClick={() => evaluate.mutate()} disabled={evaluate.isPending}>
              {evaluate.isPending ? 'Evaluating…' : 'Evaluate now'}
            </Button>
          ) : null
        }
      />
      <section aria-labelledby="violations-heading" className="space-y-3">
        <h2 id="violations-heading" className="text-lg font-semibold">
          Open violations
        </h2>
        <div className="flex flex-wrap gap-3">
          <div>
            <label htmlFor="v-rule" className="block text-sm font-medium">
              Rule
            </label>
            <select id="v-rule" className={`${inputClass} w-64`} value={rule} onChange={(e) => (setRule(e.target.value), setOffset(0))}>
              <option value="">All rules</option>
              {(ruleOptions.data?.results ?? []).map((r) => (
                <option key={r.id} value={r.id}>
                  {r.display}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="v-type" className="block text-sm font-medium">
              Object type
            </label>
            <select id="v-type" className={`${inputClass} w-56`} value={type} onChange={(e) => (setType(e.target.value), setOffset(0))}>
              <option value="">All types</option>
              {TYPES.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <DataTable
          caption="Open violations"
          rows={violations.data?.results}
          rowKey={(v) => v.id}
          loading={violations.isLoading}
          error={violations.error}
          retry={() => void violations.refetch()}
          empty={<Empty title="No open violations">Everything checked passes its rules.</Empty>}
          pager={{ offset, pageSize: PAGE, count, onOffset: setOffset }}
          columns={[
            {
              key: 'object',
              header: 'Object',
              cell: (v) => (
                <Link className="text-sky-700 hover:underline" to={paths.detail(v.object_type, v.object_id)} search={{ tab: 'compliance' }}>
                  {names.data?.get(v.object_id) ?? `${v.object_type === 'dcim.device' ? 'Device' : 'VM'} ${v.object_id}`}
                </Link>
              ),
            },
            { key: 'rule', header: 'Rule', cell: (v) => v.rule.name },
            { key: 'problem', header: 'Problem', cell: (v) => v.message },
            { key: 'since', header: 'Failing since', cell: (v) => formatDateTime(v.since), className: 'whitespace-nowrap' },
          ]}
        />
      </section>
      <section aria-labelledby="rules-heading" className="space-y-3">
        <h2 id="rules-heading" className="text-lg font-semibold">
          Rules
        </h2>
        {rules.isLoading ? <Loading /> : rules.data ? <ModelList model={rules.data} state={ruleState} onState={setRuleState} /> : <p className="text-sm text-slate-600">You may not see compliance rules.</p>}
      </section>
    </div>
  );
}
