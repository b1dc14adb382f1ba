// Compile-time assertions shared by the type tests.

/** True when `A` and `B` are the same type (not merely assignable). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/** Compiles only when `Actual` is exactly `Expected`. */
export declare function expectExact<Actual, Expected>(...proof: Equal<Actual, Expected> extends true ? [] : [never]): void
