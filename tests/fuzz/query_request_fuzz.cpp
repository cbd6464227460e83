// What a `metawarp serve` does with the bytes a client sends, up to the
// query it runs: receive_message (the length, the message, the descriptors
// attached) on a socket, then decode_request. Any program may connect, so
// any bytes must end in a request the server can run or in an error it
// answers with. A request that decodes has a command line (the program's
// name at least) and exactly its folder and standard streams as descriptors,
// and encodes to bytes that decode to the same request.
//
// Input: one option byte, then the bytes. Option bits 0-3: how many
// descriptors come with the first byte (more than a message may carry
// included); bit 7: the harness writes the length before the bytes (they are
// one message), else the bytes are all that is sent (the length included).
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/query_request.hpp"
#include "cli/unix_socket.hpp"
#include "fuzz_harness.hpp"
#include "output/file_descriptor.hpp"

using namespace metawarp;
using namespace metawarp::cli;

namespace {

// Bytes beyond this are left out: what is sent must fit in the socket's
// buffer, so that sending does not block (the receiver runs after).
constexpr std::size_t max_bytes = std::size_t{1} << 16;

// Sends `bytes` on `connection`, `descriptors` copies of one descriptor
// attached to the first byte.
void send_raw(int connection, const std::string& bytes, int descriptors) {
  static const output::FileDescriptor null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  std::size_t done = 0;
  if (!bytes.empty() && descriptors > 0) {
    std::vector<int> fds(std::size_t(descriptors), null.get());
    iovec part{const_cast<char*>(bytes.data()), 1};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* attached = CMSG_FIRSTHDR(&message);
    attached->cmsg_level = SOL_SOCKET;
    attached->cmsg_type = SCM_RIGHTS;
    attached->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(attached), fds.data(), sizeof(int) * fds.size());
    if (::sendmsg(connection, &message, MSG_NOSIGNAL) != 1) fuzz::report_bug("sendmsg failed");
    done = 1;
  }
  while (done < bytes.size()) {
    const ssize_t n = ::send(connection, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) fuzz::report_bug("send failed");
    done += std::size_t(n);
  }
}

std::string framed(const std::string& message) {
  const std::uint32_t length = std::uint32_t(message.size());
  std::string bytes(sizeof(length), '\0');
  std::memcpy(bytes.data(), &length, sizeof(length));
  return bytes + message;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::InputBytes input(data, size);
  const std::uint8_t options = input.option();
  const int descriptors = options & 0x0f;
  std::string bytes = input.rest();
  if (options & 0x80) bytes = framed(bytes);
  if (bytes.size() > max_bytes) bytes.resize(max_bytes);

  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    fuzz::report_bug("socketpair failed");
  const output::FileDescriptor server(ends[0]), client(ends[1]);
  send_raw(client.get(), bytes, descriptors);
  ::shutdown(client.get(), SHUT_WR);  // what it sent is all there is

  std::optional<QueryRequest> request;
  fuzz::documented_error_of([&] {
    std::optional<Message> message =
        receive_message(server.get(), std::chrono::steady_clock::now() + std::chrono::seconds(5));
    if (message) request = decode_request(message->bytes, message->fds.size());
  });
  if (!request) return 0;
  if (request->arguments.empty()) fuzz::report_bug("a request without a command line decoded");
  if (request->umask > 0777) fuzz::report_bug("a request with a bad umask decoded");
  const QueryRequest again = decode_request(encode(*request), request_fds);
  if (again.arguments != request->arguments || again.umask != request->umask)
    fuzz::report_bug("a request does not decode to itself once encoded");
  return 0;
}

std::vector<std::string> fuzz_seeds() {
  const auto request = [](std::vector<std::string> arguments) {
    return encode(QueryRequest{std::move(arguments), 022});
  };
  const std::string query = request({"metawarp", "query", "db", "reads.fq", "-o", "-"});
  return {
      fuzz::make_input("\x84", {query}),
      fuzz::make_input("\x84", {request({"metawarp", "query", "db", "a\nb", "", "-q"})}),
      fuzz::make_input("\x84", {request({"metawarp"})}),
      fuzz::make_input("\x04", {framed(query)}),
      fuzz::make_input("\x80", {query}),  // no descriptors
      fuzz::make_input("\x89", {query}),  // more than a message may carry
      fuzz::make_input("\x84", {encode(QueryReply{1, "a reply, not a request"})}),
  };
}
