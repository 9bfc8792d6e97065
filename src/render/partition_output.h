// Output of `trtlens partition`: text for people, json for programs (and, with
// file names, the manifest.json of `-o DIR`; docs/partition.md), markdown for
// pull-request comments.
#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "trtlens/compat.h"
#include "trtlens/partition.h"

namespace trtlens {

inline constexpr int kPartitionSchemaVersion = 1;

// Shares, the parts with their boundary tensors, then the nodes left outside.
std::string partition_text(const Model& m, const Annotations& a, const Partition& p, bool color);
// The public JSON document. `with_files`: each part names its file
// (part_file_name), which makes it the manifest of an output folder. `kb` is the
// knowledge base `a` was judged with (its fingerprint is recorded).
std::string partition_json(const Model& m, const Annotations& a, const Partition& p, const KnowledgeBase& kb,
                           bool with_files);
// The same document handed to `write` piece by piece, never held whole (a part's node
// list is one call).
void partition_json(const Model& m, const Annotations& a, const Partition& p, const KnowledgeBase& kb, bool with_files,
                    const std::function<void(std::string_view)>& write);
std::string partition_markdown(const Model& m, const Annotations& a, const Partition& p);

}  // namespace trtlens
