// Shared by the interop test files: ASSERT_OK prints the failing Status's message.
#pragma once
#include <gtest/gtest.h>

#include "tonekit/status.hpp"

namespace tonekit::interop_test {

inline const Status& status_of(const Status& s) { return s; }
template <class T>
Status status_of(const Result<T>& r) {
  return r.status();
}

}  // namespace tonekit::interop_test

// A Status or Result that must be ok, its message printed when not.
#define ASSERT_OK(expr)                                                                              \
  do {                                                                                               \
    const auto& ok_ = (expr);                                                                        \
    ASSERT_TRUE(ok_.ok()) << #expr << ": " << ::tonekit::interop_test::status_of(ok_).message();     \
  } while (0)
