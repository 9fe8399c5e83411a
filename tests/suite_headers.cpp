// The object that owns the suites' precompiled header (tests/CMakeLists.txt): the headers most
// suites include, parsed once for all of them. It defines nothing.
