/** JSON-schema type names as English noun phrases for error messages: "an array", "a string", "null". */
export function aTypeName(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map(String);
  return names.map((t) => (t === 'null' ? 'null' : `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`)).join(' or ');
}
