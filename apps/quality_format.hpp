// Text and JSON renderings of the quality scores (src/cpu/quality), shared by `tonekit quality` and
// `tonekit compare`.
#pragma once
#include <string>

#include "tonekit/quality.hpp"

namespace tonekit::cli {

// A JSON number, or null for NaN and infinities (JSON has neither).
std::string json_number(double v);
std::string json_string(const std::string& s);
// {"tmqi": {...}, "fsitm": {...}, "colour": {...}} members, without the enclosing braces.
std::string quality_json_members(const quality::QualityReport& r);
// The readable table: one block per metric.
std::string quality_table(const quality::QualityReport& r);

}  // namespace tonekit::cli
