0 // regression: a class with private methods patched its brand into an initializer buffer that may have failed to grow
class A { #p() { return 1 } q() { return this.#p() } }
return new A().q()
