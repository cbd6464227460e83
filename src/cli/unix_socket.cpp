#include "cli/unix_socket.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace metawarp::cli {
namespace {

std::runtime_error socket_error(const std::string& what, const std::string& path, int error) {
  return std::runtime_error(what + " '" + path + "': " + std::strerror(error));
}

sockaddr_un address_of(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path))
    throw std::runtime_error("socket path '" + path + "' must have 1 to " +
                             std::to_string(sizeof(address.sun_path) - 1) + " bytes");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

output::FileDescriptor new_socket() {
  output::FileDescriptor fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.is_open())
    throw std::runtime_error(std::string("cannot make a socket: ") + std::strerror(errno));
  return fd;
}

// 0 when connected, else the errno of the attempt.
int try_connect(int fd, const std::string& path) {
  const sockaddr_un address = address_of(path);
  while (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
    if (errno != EINTR) return errno;
  return 0;
}

// What is at `path` before a server listens there: nothing, or a socket
// nobody answers on (removed); anything else is refused.
void clear_stale_socket(const std::string& path) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return;
    throw socket_error("cannot check the socket path", path, errno);
  }
  if (!S_ISSOCK(status.st_mode))
    throw std::runtime_error("'" + path + "' exists and is not a socket: not replaced");
  output::FileDescriptor probe = new_socket();
  const int error = try_connect(probe.get(), path);
  if (error == 0) throw std::runtime_error("a server already listens on '" + path + "'");
  if (error != ECONNREFUSED) throw socket_error("cannot check the socket", path, error);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw socket_error("cannot remove the stale socket", path, errno);
}

void write_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, bytes, size, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("the connection failed: ") + std::strerror(errno));
    }
    bytes += n;
    size -= std::size_t(n);
  }
}

// Waits until `fd` has something to read (or its end); throws when the
// deadline comes first.
void wait_readable(int fd, Deadline deadline) {
  if (deadline == no_deadline) return;  // the read itself blocks
  while (true) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw std::runtime_error("the message did not arrive whole before the deadline");
    pollfd readable{fd, POLLIN, 0};
    const int ready = ::poll(&readable, 1, int(std::min<long long>(left.count(), 60000)));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR)
      throw std::runtime_error(std::string("the connection failed: ") + std::strerror(errno));
  }
}

// Reads exactly `size` bytes; false at the end of the connection before the
// first byte, an error after it.
bool read_all(int fd, char* bytes, std::size_t size, Deadline deadline) {
  std::size_t got = 0;
  while (got < size) {
    wait_readable(fd, deadline);
    const ssize_t n = ::recv(fd, bytes + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error(std::string("the connection failed: ") + std::strerror(errno));
    if (n == 0) {
      if (got == 0) return false;
      throw std::runtime_error("the connection ended within a message");
    }
    got += std::size_t(n);
  }
  return true;
}

}  // namespace

output::FileDescriptor listen_at(const std::string& path) {
  clear_stale_socket(path);
  output::FileDescriptor fd = new_socket();
  const sockaddr_un address = address_of(path);
  // The file bind() makes takes its mode from the umask: 0600 from the start,
  // so no other user can connect in between.
  const mode_t old_mask = ::umask(0177);
  const int bound = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  const int bind_error = errno;
  ::umask(old_mask);
  if (bound != 0) throw socket_error("cannot listen on", path, bind_error);
  if (::listen(fd.get(), 64) != 0) {
    const int error = errno;
    ::unlink(path.c_str());
    throw socket_error("cannot listen on", path, error);
  }
  return fd;
}

output::FileDescriptor accept_connection(int listening) {
  while (true) {
    const int fd = ::accept4(listening, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) return output::FileDescriptor(fd);
    if (errno != EINTR && errno != ECONNABORTED)
      throw std::runtime_error(std::string("accepting a connection failed: ") +
                               std::strerror(errno));
  }
}

output::FileDescriptor connect_to(const std::string& path) {
  output::FileDescriptor fd = new_socket();
  const int error = try_connect(fd.get(), path);
  if (error == ENOENT || error == ECONNREFUSED)
    throw std::runtime_error("no metawarp server at '" + path + "' (start one with `metawarp serve DATABASE --socket " + path + "`)");
  if (error != 0) throw socket_error("cannot connect to the server at", path, error);
  return fd;
}

Peer peer_of(int connection) {
  const auto failed = [] {
    return std::runtime_error(std::string("cannot tell who is at the other end: ") +
                              std::strerror(errno));
  };
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) throw failed();
  Peer peer{credentials.pid, credentials.uid, credentials.gid, {}};
  // The supplementary groups: ERANGE says how many there are. A kernel
  // before 4.13 cannot tell: none are known, so they grant nothing.
  peer.groups.resize(16);
  while (true) {
    size = socklen_t(peer.groups.size() * sizeof(gid_t));
    if (::getsockopt(connection, SOL_SOCKET, SO_PEERGROUPS, peer.groups.data(), &size) == 0) break;
    if (errno == ENOPROTOOPT) {
      size = 0;
      break;
    }
    if (errno != ERANGE) throw failed();
    peer.groups.resize(size / sizeof(gid_t) + 1);
  }
  peer.groups.resize(size / sizeof(gid_t));
  return peer;
}

void send_message(int connection, std::string_view bytes, std::span<const int> fds) {
  if (bytes.size() > max_message_bytes || fds.size() > max_message_fds)
    throw std::runtime_error("a message to the server is too large");
  // The length first, with the descriptors attached to its bytes, so that
  // the receiver's first read (of the length) takes them.
  const std::uint32_t length = std::uint32_t(bytes.size());
  char header[sizeof(length)];
  std::memcpy(header, &length, sizeof(length));
  iovec part{header, sizeof(header)};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_message_fds)] = {};
  if (!fds.empty()) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* attached = CMSG_FIRSTHDR(&message);
    attached->cmsg_level = SOL_SOCKET;
    attached->cmsg_type = SCM_RIGHTS;
    attached->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(attached), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t sent;
  do sent = ::sendmsg(connection, &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0)
    throw std::runtime_error(std::string("the connection failed: ") + std::strerror(errno));
  write_all(connection, header + sent, sizeof(header) - std::size_t(sent));
  write_all(connection, bytes.data(), bytes.size());
}

std::optional<Message> receive_message(int connection, Deadline deadline) {
  std::uint32_t length = 0;
  char header[sizeof(length)];
  iovec part{header, sizeof(header)};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * max_message_fds)] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  wait_readable(connection, deadline);
  ssize_t got;
  do got = ::recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
  while (got < 0 && errno == EINTR);
  if (got < 0)
    throw std::runtime_error(std::string("the connection failed: ") + std::strerror(errno));
  Message result;
  // Descriptors are owned as soon as they arrive, so none leaks on an error below.
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      result.fds.emplace_back(fd);
    }
  }
  if (got == 0) return std::nullopt;
  if (message.msg_flags & MSG_CTRUNC)
    throw std::runtime_error("a message came with too many descriptors");
  if (!read_all(connection, header + got, sizeof(header) - std::size_t(got), deadline))
    throw std::runtime_error("the connection ended within a message");
  std::memcpy(&length, header, sizeof(length));
  if (length > max_message_bytes) throw std::runtime_error("a message is too large");
  result.bytes.resize(length);
  if (length > 0 && !read_all(connection, result.bytes.data(), length, deadline))
    throw std::runtime_error("the connection ended within a message");
  return result;
}

}  // namespace metawarp::cli
