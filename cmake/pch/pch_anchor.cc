// The translation unit that CMake compiles the precompiled headers beside
// (vernier_pch and vernier_test_pch in cmake/VernierPch.cmake); it defines
// nothing.
