// GenAI spans around what the runner calls, from outside it (lib/runner stays free of tracing): each
// model adapter's call is a `chat {model}` span and each tool's execution an `execute_tool {tool}` span,
// both children of the active span (the segment's invoke_agent, active while the runner executes:
// segments.ts). A tool's span is the active one while it runs, so what it calls (its statements, an MCP
// server's tools/call) nests under it; a model call's is not made active, as nothing the console traces
// runs inside one. Each wraps the call's promise with one then (an async function and its await made two
// or three promises a call, and on Node 20 each promise pays the context manager's hooks).
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Agent, ModelAdapter, Tool } from "../runner/index.ts";
import { AFK, ERROR_TYPE, GEN_AI, MCP, OPERATION, SPAN } from "./conventions.ts";
import { captureContent, tracer, tracingOn } from "./sdk.ts";
import { untallied } from "./segments.ts";

/** The adapters, each call traced (the same object when tracing is off). */
export function traceModels(models: Record<string, ModelAdapter>): Record<string, ModelAdapter> {
  if (!tracingOn()) return models;
  return Object.fromEntries(Object.entries(models).map(([key, m]) => [key, tracedModel(key, m)]));
}

function tracedModel(provider: string, m: ModelAdapter): ModelAdapter {
  return {
    provider: m.provider,
    generate: (req) => {
      const span = tracer().startSpan(SPAN.chat(req.model), {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: OPERATION.chat,
          [GEN_AI.providerName]: provider,
          [GEN_AI.requestModel]: req.model,
          ...(captureContent() ? { [GEN_AI.inputMessages]: JSON.stringify(req.messages) } : {}),
        },
      });
      const started = performance.now();
      let first = true;
      const onText = req.onText
        ? (delta: string) => {
            if (first) {
              first = false;
              span.setAttribute(AFK.timeToFirstChunkS, (performance.now() - started) / 1000);
            }
            req.onText?.(delta);
          }
        : undefined;
      return settle(
        span,
        () => m.generate({ ...req, onText }),
        (r) => {
          span.setAttributes({
            [GEN_AI.responseModel]: req.model,
            [GEN_AI.finishReasons]: [r.finish_reason],
            [GEN_AI.inputTokens]: r.usage.input_tokens,
            [GEN_AI.outputTokens]: r.usage.output_tokens,
            ...(captureContent()
              ? { [GEN_AI.outputMessages]: JSON.stringify([{ role: "assistant", content: r.text, tool_calls: r.tool_calls }]) }
              : {}),
          });
        },
      );
    },
  };
}

/** The agent with each tool's execution traced, its subagents' too (the same agent when tracing is off). */
export function traceAgent(agent: Agent): Agent {
  if (!tracingOn()) return agent;
  return { ...agent, tools: agent.tools.map(tracedTool), subagents: agent.subagents?.map(traceAgent) };
}

function tracedTool(tool: Tool): Tool {
  return {
    ...tool,
    execute: (args, ctx) =>
      inSpan(
        SPAN.executeTool(tool.name),
        SpanKind.INTERNAL,
        {
          [GEN_AI.operationName]: OPERATION.executeTool,
          [GEN_AI.toolName]: tool.name,
          [GEN_AI.toolCallId]: ctx.toolCallId,
          [GEN_AI.toolType]: tool.origin ? "extension" : "function",
          ...(captureContent() ? { [GEN_AI.toolArguments]: JSON.stringify(args) } : {}),
        },
        () => tool.execute(args, ctx),
        captureContent() ? (out, span) => span.setAttribute(GEN_AI.toolResult, JSON.stringify(out ?? null)) : undefined,
      ),
  };
}

/** An MCP server's tools/call, as the client span the MCP conventions describe (no span when tracing is off). */
export function mcpToolsCall<T>(server: string, tool: string, fn: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return fn();
  const attributes = {
    [MCP.methodName]: MCP.toolsCall,
    [GEN_AI.toolName]: tool,
    [GEN_AI.operationName]: OPERATION.executeTool,
    [MCP.server]: server,
  };
  return inSpan(SPAN.mcpToolsCall(tool), SpanKind.CLIENT, attributes, fn);
}

// Active while fn runs; a tool's statements are spans of their own, not tallied on the segment (segments.ts).
function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  fn: () => Promise<T>,
  done?: (value: T, span: Span) => void,
): Promise<T> {
  const parent = context.active();
  const span = tracer().startSpan(name, { kind, attributes }, parent);
  return context.with(trace.setSpan(untallied(parent), span), () => settle(span, fn, done));
}

// span ends when call()'s outcome settles (done(value, span) first when it fulfils), with the error when
// it rejects or call throws; the same outcome, through one then.
function settle<T>(span: Span, call: () => Promise<T>, done?: (value: T, span: Span) => void): Promise<T> {
  let pending: Promise<T>;
  try {
    // A native promise is passed through as it is (a plain value from a JavaScript tool is wrapped).
    pending = Promise.resolve(call());
  } catch (e) {
    failed(span, e);
    span.end();
    return Promise.reject(e);
  }
  return pending.then(
    (v) => {
      done?.(v, span);
      span.end();
      return v;
    },
    (e: unknown) => {
      failed(span, e);
      span.end();
      throw e;
    },
  );
}

/** error.type: the error's class name (low cardinality), and the message as the status. */
export function failed(span: Span, e: unknown) {
  span.setAttribute(ERROR_TYPE, e instanceof Error ? e.name : "Error");
  span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message.slice(0, 500) : String(e).slice(0, 500) });
}
