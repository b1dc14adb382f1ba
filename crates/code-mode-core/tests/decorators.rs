//! Decorators in TypeScript cells run with TypeScript 5's default semantics
//! (the TC39 proposal, not `experimentalDecorators`); a JavaScript cell with
//! a decorator is a syntax error.

mod common;

use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::runs::Engine;
use serde_json::{json, Value};

use common::exec_with;

fn ts(engine: &Engine, code: &str) -> Value {
    exec_with(
        engine,
        CodeModeConfig::default(),
        code,
        Language::Typescript,
    )
}

#[test]
fn the_issue_cell_runs() {
    let engine = Engine::new(1).unwrap();
    let result = ts(
        &engine,
        "function logged(value: any, context: ClassDecoratorContext) { return value }\n@logged class A { x = 1 }\nreturn new A().x",
    );
    assert_eq!(result["value"], 1, "{result}");
}

#[test]
fn class_decorators_replace_and_see_their_context() {
    let engine = Engine::new(1).unwrap();
    let code = r#"
const seen: string[] = [];
function tag(label: string) {
  return function <T extends new (...args: any[]) => object>(value: T, context: ClassDecoratorContext) {
    seen.push(`${context.kind}:${String(context.name)}:${label}`);
    return class extends value { tagged = label };
  };
}
@tag("outer") @tag("inner")
class Box { size = 2 }
const b = new Box() as any;
return { seen, tagged: b.tagged, size: b.size, isBox: b instanceof Box };
"#;
    let result = ts(&engine, code);
    assert_eq!(
        result["value"],
        json!({
            // Decorators apply bottom-up.
            "seen": ["class:Box:inner", "class:Box:outer"],
            "tagged": "outer",
            "size": 2,
            "isBox": true,
        }),
        "{result}"
    );
}

#[test]
fn method_field_and_accessor_decorators_run() {
    let engine = Engine::new(1).unwrap();
    let code = r#"
const log: string[] = [];
function traced(method: (...args: any[]) => any, context: ClassMethodDecoratorContext) {
  return function (this: any, ...args: any[]) {
    log.push(`call ${String(context.name)}(${args.join(",")})`);
    return method.apply(this, args);
  };
}
function doubled(_: undefined, context: ClassFieldDecoratorContext) {
  log.push(`field ${String(context.name)} static=${context.static}`);
  return (initial: number) => initial * 2;
}
function clamped(target: ClassAccessorDecoratorTarget<any, number>, context: ClassAccessorDecoratorContext) {
  return {
    get(this: any) { return target.get.call(this); },
    set(this: any, v: number) { target.set.call(this, Math.min(v, 10)); },
  };
}
function bound(method: any, context: ClassMethodDecoratorContext) {
  context.addInitializer(function (this: any) { this[context.name] = method.bind(this); });
}
class Counter {
  @doubled count = 3;
  @doubled static start = 5;
  @clamped accessor level = 1;
  private step: number = 1;
  @traced add(n: number) { this.count += n * this.step; return this.count; }
  @bound who() { return this === c; }
}
const c = new Counter();
const added = c.add(4);
c.level = 99;
const who = c.who;
return { log, added, level: c.level, start: Counter.start, bound: who() };
"#;
    let result = ts(&engine, code);
    assert_eq!(
        result["value"],
        json!({
            // Static members are decorated before instance members.
            "log": ["field start static=true", "field count static=false", "call add(4)"],
            "added": 10,
            "level": 10,
            "start": 10,
            "bound": true,
        }),
        "{result}"
    );
}

#[test]
fn getter_setter_static_and_private_member_decorators_run() {
    let engine = Engine::new(1).unwrap();
    let code = r#"
const kinds: string[] = [];
function upper(get: () => string, context: ClassGetterDecoratorContext) {
  kinds.push(context.kind);
  return function (this: any) { return get.call(this).toUpperCase(); };
}
function positive(set: (v: number) => void, context: ClassSetterDecoratorContext) {
  kinds.push(context.kind);
  return function (this: any, v: number) { set.call(this, Math.abs(v)); };
}
function note(method: any, context: ClassMethodDecoratorContext) {
  kinds.push(`${context.kind}:${String(context.name)}:${context.private}:${context.static}`);
  return method;
}
class Thing {
  #n = 0;
  @upper get name() { return "box"; }
  @positive set n(v: number) { this.#n = v; }
  get n() { return this.#n; }
  @note #secret() { return 7; }
  @note static make() { return new Thing(); }
  reveal() { return this.#secret(); }
}
const t = Thing.make();
t.n = -5;
return { kinds, name: t.name, n: t.n, secret: t.reveal() };
"#;
    let result = ts(&engine, code);
    assert_eq!(
        result["value"],
        json!({
            "kinds": ["method:make:false:true", "getter", "setter", "method:#secret:true:false"],
            "name": "BOX",
            "n": 5,
            "secret": 7,
        }),
        "{result}"
    );
}

#[test]
fn undecorated_auto_accessors_run() {
    let engine = Engine::new(1).unwrap();
    let code = "class A { accessor x = 1; static accessor y = 2 }
const a = new A(); a.x += 40;
return a.x + A.y - 1";
    let result = ts(&engine, code);
    assert_eq!(result["value"], 42, "{result}");
}

#[test]
fn decorated_cells_keep_enums_awaits_and_tools() {
    let engine = Engine::new(1).unwrap();
    let code = r#"
enum Kind { A = 1, B }
function id<T>(v: T, _c: ClassDecoratorContext) { return v }
@id class K { kind: Kind = Kind.B }
const echoed = await tools.call("echo", { k: new K().kind });
return echoed.k + Kind.A;
"#;
    let result = ts(&engine, code);
    assert_eq!(result["value"], 3, "{result}");
}

#[test]
fn errors_in_decorated_cells_are_reported() {
    let engine = Engine::new(1).unwrap();
    let code = "function boom(_v: any, _c: ClassDecoratorContext): void { throw new Error('no') }\n@boom class A {}\nreturn 1";
    let result = ts(&engine, code);
    assert_eq!(result["code"], "internal_error", "{result}");
    let error = result["error"].as_str().unwrap();
    assert!(error.starts_with("Error: no at line "), "{error}");
}

#[test]
fn parameter_decorators_are_refused() {
    // TypeScript 5 without experimentalDecorators: "Decorators are not valid here."
    let engine = Engine::new(1).unwrap();
    let code = "function d(..._: any[]) {}\nclass A { m(@d x: number) { return x } }\nreturn 1";
    let result = ts(&engine, code);
    assert_eq!(result["code"], "invalid_input", "{result}");
    assert_eq!(
        result["error"],
        "typescript transform failed: decorators are not valid here (TypeScript 5 decorators apply to classes and their members) at line 2:13"
    );
}

#[test]
fn javascript_cells_with_decorators_are_syntax_errors() {
    let engine = Engine::new(1).unwrap();
    let code = "function logged(value, context) { return value }\n@logged class A { x = 1 }\nreturn new A().x";
    let result = exec_with(
        &engine,
        CodeModeConfig::default(),
        code,
        Language::Javascript,
    );
    assert_eq!(result["code"], "internal_error", "{result}");
    assert_eq!(
        result["error"],
        "SyntaxError: decorators are not supported in JavaScript cells; use language \"typescript\" at line 2:1"
    );
}

#[test]
fn cells_without_decorators_keep_exact_positions() {
    // `@` inside strings, comments and templates is not a decorator.
    let engine = Engine::new(1).unwrap();
    let code = "const s: string = '@x' // @y\nconst t = `@${s}`;\n      missing(t);";
    let result = ts(&engine, code);
    assert_eq!(
        result["error"], "ReferenceError: missing is not defined at line 3:7",
        "{result}"
    );
}
