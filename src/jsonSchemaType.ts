/**
 * The TypeScript type of a value that a JSON schema (written `as const`) accepts, for the keywords
 * the route schemas use: type (string, integer, number, boolean, array, object), enum, nullable,
 * properties with required, additionalProperties (a schema: a string-keyed record; `true` or
 * absent: extra keys are allowed and left untyped). Anything else maps to `unknown`.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

type ObjectType<S> = Simplify<
  (S extends { properties: infer P }
    ? { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]-?: JsonSchemaType<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: JsonSchemaType<P[K]>;
      }
    : unknown) &
    (S extends { additionalProperties: infer A } ? (A extends object ? Record<string, JsonSchemaType<A>> : unknown) : unknown)
>;

type NonNullType<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: 'string' }
    ? string
    : S extends { type: 'integer' | 'number' }
      ? number
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'array'; items: infer I }
          ? JsonSchemaType<I>[]
          : S extends { type: 'object' }
            ? ObjectType<S>
            : unknown;

export type JsonSchemaType<S> = S extends { nullable: true } ? NonNullType<S> | null : NonNullType<S>;
