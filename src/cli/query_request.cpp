#include "cli/query_request.hpp"

#include <charconv>
#include <stdexcept>

#include "cli/command_line.hpp"

namespace metawarp::cli {
namespace {

constexpr std::string_view request_magic = "metawarp-query-request 1";
constexpr std::string_view reply_magic = "metawarp-query-reply 2";

// Reads a message written as lines: a header, the version, then fields.
class Fields {
 public:
  Fields(std::string_view bytes, std::string_view magic) : rest_(bytes) {
    if (line() != magic) throw std::runtime_error("not a metawarp query message");
    const std::string_view version = line();
    if (version != program_version)
      throw std::runtime_error("the other end is " + std::string(version) + ", this is " +
                               program_version + ": use one build for both");
  }
  std::string_view line() {
    const std::size_t end = rest_.find('\n');
    if (end == std::string_view::npos) throw std::runtime_error("a query message is cut short");
    const std::string_view text = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
    return text;
  }
  long long number() {
    const std::string_view text = line();
    long long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
      throw std::runtime_error("a query message holds a bad number");
    return value;
  }
  std::string_view bytes(std::size_t count) {
    if (count > rest_.size()) throw std::runtime_error("a query message is cut short");
    const std::string_view text = rest_.substr(0, count);
    rest_.remove_prefix(count);
    return text;
  }
  // A field of `number()` bytes.
  std::string_view sized() {
    const long long size = number();
    if (size < 0) throw std::runtime_error("a query message holds a bad length");
    return bytes(std::size_t(size));
  }
  // Nothing may follow the last field.
  void end() const {
    if (!rest_.empty()) throw std::runtime_error("a query message has bytes after its end");
  }

 private:
  std::string_view rest_;
};

std::string header(std::string_view magic) {
  return std::string(magic) + "\n" + program_version + "\n";
}

}  // namespace

std::string encode(const QueryRequest& request) {
  std::string text = header(request_magic);
  text += std::to_string(request.umask) + "\n" + std::to_string(request.arguments.size()) + "\n";
  // Arguments by length: they may hold any byte, a line end included.
  for (const std::string& argument : request.arguments)
    text += std::to_string(argument.size()) + "\n" + argument;
  return text;
}

std::string encode(const QueryReply& reply) {
  return header(reply_magic) + std::to_string(reply.exit_status) + "\n" +
         std::to_string(reply.refusal.size()) + "\n" + reply.refusal;
}

QueryRequest decode_request(std::string_view bytes, std::size_t descriptors) {
  Fields fields(bytes, request_magic);
  QueryRequest request;
  const long long umask = fields.number();
  if (umask < 0 || umask > 0777) throw std::runtime_error("a query message holds a bad umask");
  request.umask = mode_t(umask);
  const long long count = fields.number();
  if (count < 0 || count > 100000) throw std::runtime_error("a query message holds a bad count");
  // main()'s arguments start with the program's name: none is no command line.
  if (count == 0) throw std::runtime_error("a request without a command line");
  for (long long i = 0; i < count; ++i) request.arguments.emplace_back(fields.sized());
  fields.end();
  if (descriptors != request_fds)
    throw std::runtime_error("a request came with " + std::to_string(descriptors) +
                             " descriptors, not its folder and standard streams (" +
                             std::to_string(int(request_fds)) + ")");
  return request;
}

QueryReply decode_reply(std::string_view bytes) {
  Fields fields(bytes, reply_magic);
  QueryReply reply;
  reply.exit_status = int(fields.number());
  reply.refusal = fields.sized();
  fields.end();
  return reply;
}

}  // namespace metawarp::cli
