"use client";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { type JsonSchema, SchemaFields, type Values, cleanValues, initialValues } from "@/components/schema-form";
import type { AgentsDto } from "@/lib/dto";
import { errorText } from "@/lib/dto-shared";
import { checkValues } from "@/lib/form-check";
import { startRunAction } from "./actions";
import { rememberLastAgent } from "./last-agent";

// crypto.randomUUID needs a secure context; getRandomValues works on plain-HTTP hosts too.
const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

type AgentInfo = Pick<AgentsDto["agents"][number], "name" | "description" | "inputSchema" | "unavailable">;

const plural = (n: number) => (n === 1 ? "1 field needs" : `${n} fields need`);

export function StartRunForm({ agents, initialAgent, userId }: { agents: AgentInfo[]; initialAgent?: string; userId: string }) {
  const router = useRouter();
  const [agentName, setAgentName] = useState(initialAgent ?? "");
  const agent = agents.find((a) => a.name === agentName);
  const [values, setValues] = useState<Values>(() => (agent ? initialValues(agent.inputSchema as JsonSchema) : {}));
  // Every invalid field (checked here from the schema, or the field the server named) and a failure of
  // the form as a whole.
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  // One key per form: submitting twice, or again after the answer was lost, starts one run.
  const [idempotencyKey, setIdempotencyKey] = useState(() => newKey());

  const pick = (name: string) => {
    setAgentName(name);
    const a = agents.find((x) => x.name === name);
    setValues(a ? initialValues(a.inputSchema as JsonSchema) : {});
    setFieldErrors({});
    setFormError(null);
  };
  const focusFirst = (errors: Record<string, string>) => {
    const first = Object.keys((agent?.inputSchema as JsonSchema | undefined)?.properties ?? {}).find((k) => errors[k]);
    if (first) document.getElementById(`input-${first}`)?.focus();
  };

  function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    if (!agent) return;
    const input = cleanValues(values);
    // Everything the schema can say is checked here, all fields at once, before anything is sent.
    const problems = checkValues(agent.inputSchema, input);
    setFieldErrors(problems);
    setFormError(null);
    if (Object.keys(problems).length) return focusFirst(problems);
    start(async () => {
      const r = await startRunAction({ agent: agentName, input }, idempotencyKey);
      if (r.ok) {
        rememberLastAgent(userId, agentName);
        setIdempotencyKey(newKey());
        router.push(`/runs/${r.data.id}`);
        return;
      }
      const field = r.field?.startsWith("input.") ? r.field.slice(6) : undefined;
      if (field && field in ((agent.inputSchema as JsonSchema).properties ?? {})) {
        const errors = { [field]: errorText(r) };
        setFieldErrors(errors);
        focusFirst(errors);
      } else setFormError(errorText(r));
    });
  }

  const invalidCount = Object.keys(fieldErrors).length;
  return (
    <form method="post" onSubmit={onSubmit} className="card max-w-xl space-y-4" aria-label="Start a run" noValidate>
      <div>
        <label className="label" htmlFor="agent">
          Agent
        </label>
        <select id="agent" className="input mt-1" value={agentName} onChange={(e) => pick(e.target.value)}>
          {agents.map((a) => (
            <option key={a.name} value={a.name}>
              {a.unavailable ? `${a.name} (not configured)` : a.name}
            </option>
          ))}
        </select>
        {agent && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{agent.description}</p>}
        {agent?.unavailable && (
          <p role="status" className="mt-1 text-sm text-amber-700 dark:text-amber-400">
            Runs of {agent.name} cannot start: {agent.unavailable}.
          </p>
        )}
      </div>
      {agent && ((agent.inputSchema as JsonSchema).required ?? []).length > 0 && (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Fields marked <span className="text-rose-700 dark:text-rose-400">*</span> are required.
        </p>
      )}
      {agent && (
        <SchemaFields
          key={agent.name}
          schema={agent.inputSchema as JsonSchema}
          values={values}
          onChange={setValues}
          errors={fieldErrors}
          idPrefix="input"
        />
      )}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className="btn-primary" disabled={pending || !agent || !!agent.unavailable}>
          {pending ? "Starting…" : "Start run"}
        </button>
        {invalidCount > 0 && (
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-400" data-testid="form-problems">
            {plural(invalidCount)} attention.
          </p>
        )}
        {formError && (
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
            {formError}
          </p>
        )}
      </div>
    </form>
  );
}
