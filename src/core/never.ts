/**
 * For `switch` statements over a union (a status, a verdict): with every case
 * handled the argument's type is `never`, so a member added to the union later
 * (a new status) is a compile error at each switch that does not handle it.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
