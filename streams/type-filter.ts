import { filter, identity, type MonoTypeOperatorFunction } from 'rxjs';
import { FLOW_EVENT_TYPES, type Envelope } from './contract.js';

/**
 * An event_type whitelist. `null` means "all events": the contract treats a list
 * containing `*`, an empty list, null and an omitted list alike.
 */
export type TypeFilter = ReadonlySet<string> | null;

export function typeFilter(types: readonly string[] | null | undefined): TypeFilter {
  if (!types || types.length === 0 || types.includes('*')) return null;
  return new Set(types);
}

/** The names of the `types` query form: comma separated, repeated, or absent (none). */
export function typeNamesFromQuery(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value])
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** Parses the `types` query form into a filter. */
export function typeFilterFromQuery(value: unknown): TypeFilter {
  return typeFilter(typeNamesFromQuery(value));
}

export function acceptsType(f: TypeFilter, eventType: string): boolean {
  return f === null || f.has(eventType);
}

/** Whether a subscription with this filter gets the flow.snapshot baseline. */
export function wantsFlowEvents(f: TypeFilter): boolean {
  return f === null || FLOW_EVENT_TYPES.some((t) => f.has(t));
}

/** Keeps the events the filter accepts; "all events" adds no step to each event's way. */
export function filterTypes<E extends Pick<Envelope, 'event_type'>>(f: TypeFilter): MonoTypeOperatorFunction<E> {
  return f === null ? identity : filter((e) => f.has(e.event_type));
}
