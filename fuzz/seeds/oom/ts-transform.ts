0t// TypeScript (transform mode): enums, const enums, namespaces, parameter properties, <T> assertions, abstract classes, declare
enum Color { Red, Green = 5, Blue }
enum Status { Open = 'open', Closed = 'closed' }
const enum Flags { None = 0, A = 1 << 0, B = 1 << 1, AB = A | B }
namespace Geometry {
  export const unit = 1
  export function area(w: number, h: number) { return w * h * unit }
  export namespace Nested { export const deep = 'deep' }
}
abstract class Shape {
  constructor(protected readonly name: string, public sides: number) {}
  abstract area(): number
  describe() { return `${this.name} with ${this.sides} sides: ${this.area()}` }
}
class Square extends Shape {
  constructor(private side: number) { super('square', 4) }
  area() { return this.side ** 2 }
}
declare const injected: number | undefined
const cast = <string>(<unknown>'angle cast')
const statuses = Object.values(Status)
return {
  colors: [Color.Red, Color.Green, Color.Blue, Color[6]], statuses, flags: Flags.AB, geometry: [Geometry.area(2, 3), Geometry.Nested.deep],
  square: new Square(3).describe(), injected: typeof injected === 'undefined' ? 'declared only' : injected, cast,
}
