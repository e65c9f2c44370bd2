import { Ajv, type Options } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
