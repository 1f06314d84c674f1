// The precompiled headers of the tests: those of every module
// (vernier_pch.h) and googletest's (see cmake/VernierPch.cmake).
#pragma once

#include "cmake/pch/vernier_pch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
