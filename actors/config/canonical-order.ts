/** The part of a JSON Schema (as z.toJSONSchema writes the config's) that decides key order. */
export interface OrderSchema {
  properties?: Record<string, OrderSchema>;
  additionalProperties?: OrderSchema | boolean;
  items?: OrderSchema;
  oneOf?: OrderSchema[];
  anyOf?: OrderSchema[];
  $ref?: string;
  $defs?: Record<string, OrderSchema>;
  const?: unknown;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The object schemas `schema` stands for: itself, or the options of a oneOf/anyOf
 * (nested ones too), with `#/$defs/` references resolved.
 */
function objectOptions(schema: OrderSchema | undefined, root: OrderSchema): OrderSchema[] {
  if (schema === undefined) return [];
  if (schema.$ref !== undefined) return objectOptions(root.$defs?.[schema.$ref.replace('#/$defs/', '')], root);
  const options = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap((o) => objectOptions(o, root));
  return schema.properties || schema.additionalProperties ? [schema, ...options] : options;
}

/**
 * Which option an object is: the one whose `type` constant it carries (inbounds,
 * outbounds, sinks), else the first that declares all its keys.
 */
function optionFor(value: JsonObject, schema: OrderSchema, root: OrderSchema): OrderSchema | undefined {
  const options = objectOptions(schema, root);
  return (
    options.find((o) => o.properties?.['type']?.const !== undefined && o.properties['type'].const === value['type']) ??
    options.find((o) => Object.keys(value).every((k) => o.properties?.[k] !== undefined)) ??
    options[0]
  );
}

function arrayItems(schema: OrderSchema | undefined, root: OrderSchema): OrderSchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.$ref !== undefined) return arrayItems(root.$defs?.[schema.$ref.replace('#/$defs/', '')], root);
  return schema.items ?? [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].map((o) => arrayItems(o, root)).find((i) => i !== undefined);
}

/**
 * `value` with every object's keys in the order its schema declares them, recursively;
 * keys the schema does not name (a record's) keep their order after the declared ones.
 * Values, array order and everything else stay as they are.
 */
export function canonicalOrder(value: unknown, schema: OrderSchema | undefined, root: OrderSchema): unknown {
  if (Array.isArray(value)) {
    const items = arrayItems(schema, root);
    return value.map((v) => canonicalOrder(v, items, root));
  }
  if (!isObject(value) || schema === undefined) return value;
  const option = optionFor(value, schema, root);
  const declared = Object.keys(option?.properties ?? {}).filter((k) => Object.hasOwn(value, k));
  const rest = Object.keys(value).filter((k) => !declared.includes(k));
  const out: JsonObject = {};
  for (const key of declared) out[key] = canonicalOrder(value[key], option?.properties?.[key], root);
  const extra = typeof option?.additionalProperties === 'object' ? option.additionalProperties : undefined;
  for (const key of rest) out[key] = canonicalOrder(value[key], extra, root);
  return out;
}
