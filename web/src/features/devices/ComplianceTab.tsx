// The Compliance tab of a device or VM: its open violations (GET /api/<type>/<id>/compliance/).
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { Badge } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { DataTable } from '../../components/DataTable.tsx';

export interface Violation {
  id: string;
  rule: { id: string; name: string; check_kind: string; fail_on?: string };
  object_type: string;
  object_id: string;
  message: string;
  since: string;
}

export default function ComplianceTab({ model, object }: DetailTabProps) {
  const path = `${model.path}${object.id}/compliance/`;
  const answer = useQuery({
    queryKey: ['compliance', path],
    queryFn: () => get<{ state: 'compliant' | 'violations' | 'no_rules'; rules: number; count: number; violations: Violation[] }>(path),
  });
  if (answer.isLoading) return <Loading />;
  if (answer.error) return <ErrorState error={answer.error} retry={() => void answer.refetch()} />;
  const { state, rules, count, violations } = answer.data!;
  return (
    <div className="space-y-3">
      <p className="text-sm">
        {state === 'no_rules' ? (
          <Badge tone="slate">No rules apply</Badge>
        ) : state === 'compliant' ? (
          <Badge tone="green">
            Compliant with {rules} {rules === 1 ? 'rule' : 'rules'}
          </Badge>
        ) : (
          <Badge tone="red">
            {count} {count === 1 ? 'violation' : 'violations'}
          </Badge>
        )}{' '}
        <Link to="/compliance" className="text-sky-700 hover:underline">
          All rules and violations
        </Link>
      </p>
      {/* The badge above says there are none. */}
      <DataTable
        caption="Open violations"
        rows={violations}
        rowKey={(v) => v.id}
        empty={null}
        columns={[
          {
            key: 'rule',
            header: 'Rule',
            cell: (v) => (
              <Link className="text-sky-700 hover:underline" to={paths.detail('compliance.rule', v.rule.id)}>
                {v.rule.name}
              </Link>
            ),
          },
          { key: 'problem', header: 'Problem', cell: (v) => v.message },
          { key: 'since', header: 'Failing since', cell: (v) => formatDateTime(v.since), className: 'whitespace-nowrap' },
        ]}
      />
    </div>
  );
}
