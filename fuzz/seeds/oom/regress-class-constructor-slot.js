0 // regression: the class parser patched the constructor's constant-pool slot into a buffer that had failed to grow (SIGSEGV)
class A { m() { return 1 } }
class B extends A {}
return new B().m()
