#include <gtest/gtest.h>

#include "render/graphviz.h"
#include "render/table.h"

namespace trtlens {

TEST(Table, TextAlignsColumnsAndRightAlignsNumbers) {
  Table t{{"name", "ms"}, {{"conv1", "1.5"}, {"a", "12.25"}}, {false, true}};
  EXPECT_EQ(to_text(t), "name      ms\n-----  -----\nconv1    1.5\na      12.25\n");
}

TEST(Table, MarkdownEscapesPipes) {
  Table t{{"a"}, {{"x|y"}}, {}};
  EXPECT_EQ(to_markdown(t), "| a |\n| --- |\n| x\\|y |\n");
}

TEST(Table, ControlCharactersInCellsAreEscapedAndColourIsTheCellsOwn) {
  Table t{{"name", "verdict"}, {{"a\nb\x1b[31m", Cell("OK", "32")}}, {}};
  EXPECT_EQ(to_text(t), "name            verdict\n--------------  -------\na\\x0ab\\x1b[31m  \x1b[32mOK\x1b[0m\n");
  EXPECT_EQ(to_markdown(t), "| name | verdict |\n| --- | --- |\n| a\\x0ab\\x1b[31m | OK |\n");
}

TEST(Table, CsvQuotesCellsWithCommasAndQuotes) {
  Table t{{"a", "b"}, {{"1,2", "say \"hi\""}}, {}};
  EXPECT_EQ(to_csv(t), "a,b\r\n\"1,2\",\"say \"\"hi\"\"\"\r\n");
}

TEST(Graphviz, LaysOutTopToBottom) {
  DotGraph g;
  g.graph_attrs = {{"rankdir", "TB"}};
  g.nodes = {{"a", {{"label", "A"}}}, {"b", {{"label", "B"}}}};
  g.edges = {{"a", "b", {}}};
  GraphLayout l = layout_graph(g);
  ASSERT_EQ(l.nodes.size(), 2u);
  EXPECT_LT(l.nodes[0].y, l.nodes[1].y);  // a above b
  ASSERT_EQ(l.edges.size(), 1u);
  EXPECT_GE(l.edges[0].points.size(), 4u);
  EXPECT_NE(render_svg(g).find("<svg"), std::string::npos);
}

}  // namespace trtlens
