"use client";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { type JsonSchema, SchemaFields, type Values, cleanValues, initialValues } from "@/components/schema-form";
import type { AgentsDto } from "@/lib/dto";
import { errorText } from "@/lib/dto-shared";
import { startRunAction } from "./actions";

// crypto.randomUUID needs a secure context; getRandomValues works on plain-HTTP hosts too.
const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

type AgentInfo = Pick<AgentsDto["agents"][number], "name" | "description" | "inputSchema" | "unavailable">;

export function StartRunForm({ agents, initialAgent }: { agents: AgentInfo[]; initialAgent?: string }) {
  const router = useRouter();
  const [agentName, setAgentName] = useState(initialAgent ?? "");
  const agent = agents.find((a) => a.name === agentName);
  const [values, setValues] = useState<Values>(() => (agent ? initialValues(agent.inputSchema as JsonSchema) : {}));
  const [error, setError] = useState<{ field?: string; error: string } | null>(null);
  const [pending, start] = useTransition();
  // One key per form: submitting twice, or again after the answer was lost, starts one run.
  const [idempotencyKey, setIdempotencyKey] = useState(() => newKey());

  const pick = (name: string) => {
    setAgentName(name);
    const a = agents.find((x) => x.name === name);
    setValues(a ? initialValues(a.inputSchema as JsonSchema) : {});
    setError(null);
  };

  function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    start(async () => {
      const r = await startRunAction({ agent: agentName, input: cleanValues(values) }, idempotencyKey);
      if (r.ok) {
        setIdempotencyKey(newKey());
        router.push(`/runs/${r.data.id}`);
      } else setError({ field: r.field, error: errorText(r) });
    });
  }

  const inputField = error?.field?.startsWith("input.") ? error.field.slice(6) : undefined;
  return (
    <form onSubmit={onSubmit} className="card max-w-xl space-y-4" aria-label="Start a run" noValidate>
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
        {agent && <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{agent.description}</p>}
        {agent?.unavailable && (
          <p role="status" className="mt-1 text-sm text-amber-700 dark:text-amber-400">
            Runs of {agent.name} cannot start: {agent.unavailable}.
          </p>
        )}
      </div>
      {agent && (
        <SchemaFields
          schema={agent.inputSchema as JsonSchema}
          values={values}
          onChange={setValues}
          errorField={inputField}
          errorMessage={error?.error}
          idPrefix="input"
        />
      )}
      <div className="flex items-center gap-3">
        <button type="submit" className="btn-primary" disabled={pending || !agent || !!agent.unavailable}>
          {pending ? "Starting…" : "Start run"}
        </button>
        {error && !inputField && (
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
            {error.error}
          </p>
        )}
      </div>
    </form>
  );
}
