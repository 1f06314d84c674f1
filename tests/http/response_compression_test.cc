#include "http/response_compression.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace vernier::http {
namespace {

std::string Gunzip(const std::string& compressed) {
  z_stream stream{};
  inflateInit2(&stream, 15 + 16);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(ResponseCompressionTest, GzipRoundTripsAndShrinksRepetitiveJson) {
  std::string json = "[";
  for (int i = 0; i < 5000; ++i)
    json += R"({"id":")" + std::to_string(i) + R"(","state":"SUCCEEDED"},)";
  json += "{}]";
  const std::string compressed = Gzip(json);
  EXPECT_LT(compressed.size(), json.size() / 4);
  EXPECT_EQ(Gunzip(compressed), json);
  EXPECT_EQ(Gunzip(Gzip("")), "");
}

TEST(ResponseCompressionTest, AcceptsGzipWhenListedWithoutQZero) {
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("br, deflate"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0, br"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000"));
  EXPECT_FALSE(AcceptsGzip("gzipped"));
}

}  // namespace
}  // namespace vernier::http
