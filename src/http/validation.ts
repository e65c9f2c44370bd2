import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError } from './errors.ts';
import { PATTERN_RULES } from './schemas.ts';

function compiler(options: Options): Ajv {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: false, strict: false, ...options });
  // ajv-formats is CommonJS: under NodeNext its callable is the default export's `default`.
  formatsPlugin.default(ajv);
  return ajv;
}

// Bodies are JSON and keep their types (a number is never taken as a message); query strings and
// path parameters arrive as text and are coerced to the declared type.
const bodyAjv = compiler({ coerceTypes: false });
const urlAjv = compiler({ coerceTypes: true });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : urlAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

const TRIM_DEPTH = 3;

/** CONTRACT §1: text fields are trimmed before they are validated and stored. */
export function trimStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.trim();
  if (depth >= TRIM_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => trimStrings(item, depth + 1));
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = trimStrings(record[key], depth + 1);
  return record;
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/**
 * COMPAT R1: a property whose value is JSON null is read as absent (then defaulted) when the
 * route's body schema makes it optional, in nested objects too (identity and its keys); a required
 * one stays null and fails validation. Driven by the schema, so every route follows its own.
 */
export function absentNulls(value: unknown, schema: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (schema === null || typeof schema !== 'object') return value;
  const { properties, required = [] } = schema as ObjectSchema;
  if (properties === undefined) return value;
  const record = value as Record<string, unknown>;
  for (const [key, property] of Object.entries(properties)) {
    if (!(key in record)) continue;
    if (record[key] === null && !required.includes(key)) delete record[key];
    else absentNulls(record[key], property);
  }
  return record;
}

type ValidationIssue = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params' | 'message'>;

function fieldOf(issue: ValidationIssue): string | undefined {
  const missing = (issue.params as { missingProperty?: string }).missingProperty;
  const parts = issue.instancePath.split('/').filter(Boolean);
  if (missing) parts.push(missing);
  return parts.length ? parts.join('.') : undefined;
}

/** The sentence of a validation error: the field and the rule it broke (a length, a pattern in words, a type). */
function ruleSentence(issue: ValidationIssue, field: string): string {
  const params = issue.params as { limit?: number; pattern?: string };
  switch (issue.keyword) {
    case 'required':
      return `The field "${field}" is required.`;
    case 'pattern':
      return `The field "${field}" must be ${PATTERN_RULES[params.pattern ?? ''] ?? `text matching ${params.pattern}`}.`;
    case 'minLength':
      return `The field "${field}" must be at least ${params.limit} characters long.`;
    case 'maxLength':
      return `The field "${field}" must be at most ${params.limit} characters long.`;
    default:
      return `The field "${field}" ${issue.message ?? 'is not valid'}.`;
  }
}

/** 400 invalid_request for the first validation issue, naming its field and rule. */
export function invalidRequest(issues: readonly ValidationIssue[] | null | undefined): ApiError {
  const first = issues?.[0];
  const field = first && fieldOf(first);
  if (!first || !field) return new ApiError('invalid_request', { message: 'The request body must be a JSON object.' });
  return new ApiError('invalid_request', { field, message: ruleSentence(first, field) });
}

const compiled = new WeakMap<TSchema, ValidateFunction>();

/**
 * A value checked against a route's body schema outside a route (an A2A message): trimmed and its
 * nulls read as a route reads them, then validated by the same compiler; invalid_request otherwise.
 */
export function validated<T extends TSchema>(schema: T, value: Record<string, unknown>): Static<T> {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = bodyAjv.compile(schema)));
  const body = absentNulls(trimStrings(value), schema);
  if (!check(body)) throw invalidRequest(check.errors);
  return body as Static<T>;
}
