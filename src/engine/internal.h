// Helpers shared by the engine loader, summary, linters and renderers.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trtlens/engine.h"

namespace trtlens::engine_detail {

// Precision ("FP16") and TensorRT layout ("HWC8") of an inspector format
// description, or of the 11.x "Format" plus "Datatype" pair.
void parse_format(std::string_view format, std::string& precision, std::string& layout);

// The number `s` starts with (after blanks) and the word after it: "1.41 GHz"
// → 1.41, "GHz"; "5120 bits (ECC enabled)" → 5120, "bits". False when `s`
// does not start with a finite number.
bool number_and_unit(std::string_view s, double& v, std::string_view& unit);

// Bytes per element of a precision ("FP16" → 2); 0 when unknown.
int element_size(std::string_view precision);

// "1x3x224x224"; "?" for a dynamic dimension.
std::string dims_text(const std::vector<int64_t>& dims);

// "0.123" with enough digits for small layers.
std::string ms_text(double ms);
std::string percent_text(double pct);

bool is_float_precision(std::string_view p);

// The trtexec --inputIOFormats/--outputIOFormats spelling of a tensor's format
// ("fp16:hwc8", "int8:chw4"); "" when trtexec has no name for its precision or layout.
std::string trtexec_io_format(const EngineTensor& t);

// A Quantize or Dequantize TensorRT left as its own layer: a Scale layer or a
// reformat of Origin QDQ whose input and output disagree on INT8. The
// qdq-unfused linter owns these layers; other linters leave them alone so
// that each layer is reported once for one problem.
bool is_unfused_qdq(const EngineLayer& l);

// Sums and products of byte counts from hostile files: they stop at INT64_MAX
// instead of overflowing (arguments are >= 0).
int64_t saturating_add(int64_t a, int64_t b);
int64_t saturating_mul(int64_t a, int64_t b);

// The "performance_summary" of profile.metadata.json (TREx's parse of a
// trtexec log: metrics as [min, max, mean, median, percentiles...]) as
// numbers; figures that are not finite non-negative numbers are left out.
// Absent when the text is not a JSON object or is empty.
std::optional<TrtexecPerformance> performance_from_metadata(const std::string& json_text);

}  // namespace trtlens::engine_detail
