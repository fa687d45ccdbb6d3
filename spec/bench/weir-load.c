/*
 * weir-load: the bench's load client and origin, on loopback only. The bench compiles
 * it with the system cc at run time; one epoll thread per process keeps its CPU per
 * connection and per byte far below the proxies it drives, so they, not it, saturate.
 *
 *   weir-load origin
 *     Listens on three 127.0.0.1 ports and prints them as one JSON line:
 *     sink (reads an 8-byte big-endian length, that many bytes, answers one byte, closes),
 *     echo (echoes until told "close-echoes" on stdin) and echo_once (echoes 16 bytes,
 *     closes). The origin always closes first, so TIME_WAIT lands on its ports.
 *     It exits when stdin ends.
 *   weir-load stream|rate|idle --port P --proto socks5|http|none --target HOST:PORT ...
 *     stream --bytes N       one tunnel, N bytes in 1 MiB writes to a sink, until acked
 *     rate --concurrency C --ms D [--per-second R]
 *                            C at a time: connect, handshake, 16-byte echo, wait for the
 *                            origin's close; new ones start for D ms, as fast as the
 *                            proxy takes them or, with R, R a second (still at most C
 *                            under way)
 *     idle --count N --concurrency C
 *                            N tunnels that each echoed once, held until the origin
 *                            closes them (or --hold-ms passes, or stdin ends)
 *   --auth USER:PASS       SOCKS5 only: offers user/password authentication (RFC 1929)
 *                            instead of none
 *   Every result is one JSON line on stdout with the client's own CPU time (getrusage).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ECHO_BYTES 16
#define CHUNK (1 << 20)
#define STEP_TIMEOUT_S 10.0
#define STREAM_TIMEOUT_S 120.0
#define MAX_EVENTS 256
#define STDIN_TAG UINT64_MAX

static unsigned char big[CHUNK];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fail(const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  for (char *c = text; *c; c++)
    if (*c == '"' || *c == '\\') *c = '\'';
  printf("{\"error\":\"%s\"}\n", text);
  fflush(stdout);
  exit(1);
}

/* Thousands of tunnels need more descriptors than the usual soft limit. */
static int raise_fd_limit(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return 1024;
  r.rlim_cur = r.rlim_max;
  setrlimit(RLIMIT_NOFILE, &r);
  getrlimit(RLIMIT_NOFILE, &r);
  return r.rlim_cur > 1 << 20 ? 1 << 20 : (int)r.rlim_cur;
}

static void watch(int ep, int fd, uint32_t events) {
  struct epoll_event e = {.events = events, .data.u64 = (uint64_t)fd};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) != 0) fail("epoll_ctl: %s", strerror(errno));
}

/* The bench holds stdin open: its end means the bench is gone. A file or tty on stdin (EPERM) is not watched. */
static void watch_stdin(int ep) {
  struct epoll_event e = {.events = EPOLLIN, .data.u64 = STDIN_TAG};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &e) != 0 && errno != EPERM) fail("epoll_ctl stdin: %s", strerror(errno));
}

static void cpu_us(double *user, double *sys) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  *user = (double)u.ru_utime.tv_sec * 1e6 + (double)u.ru_utime.tv_usec;
  *sys = (double)u.ru_stime.tv_sec * 1e6 + (double)u.ru_stime.tv_usec;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/* ---------------------------------------------------------------- origin */

enum { O_SINK, O_ECHO, O_ONCE, O_KINDS };
static const char *const ORIGIN_NAMES[O_KINDS] = {"sink", "echo", "echo_once"};

struct served {
  unsigned char kind, open;
  unsigned char header_got;
  unsigned char header[8];
  int lowat;
  uint64_t left;
};

/* A sink wakes for this much data at a time, whatever size of writes the proxy relays in. */
#define SINK_LOWAT (256 << 10)

static int listener(int kind, int *port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  struct sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  if (fd < 0) fail("socket: %s", strerror(errno));
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) fail("bind %s: %s", ORIGIN_NAMES[kind], strerror(errno));
  /* Thousands of tunnels connect in bursts; a short backlog would drop SYNs. */
  if (listen(fd, 4096) != 0) fail("listen: %s", strerror(errno));
  getsockname(fd, (struct sockaddr *)&a, &len);
  *port = ntohs(a.sin_port);
  return fd;
}

/* close() also takes the descriptor out of the epoll set. */
static void origin_close(struct served *s, int fd) {
  close(fd);
  s[fd].open = 0;
}

/*
 * A sink reads the 8-byte length, then drops the stream with MSG_TRUNC, which TCP
 * discards without copying it out: the origin's cost per byte stays far below a relay's.
 * Returns 0 when the connection is done.
 */
static int sink_read(struct served *c, int fd) {
  for (int rounds = 0; rounds < 64; rounds++) {
    int header = c->header_got < 8;
    size_t want = header ? 8u - c->header_got : c->left < (1u << 30) ? (size_t)c->left : 1u << 30;
    ssize_t n = recv(fd, header ? c->header + c->header_got : big, want, header ? 0 : MSG_TRUNC);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return 0;
    if (n < 0) return 1;
    if (header) {
      c->header_got = (unsigned char)(c->header_got + n);
      if (c->header_got < 8) return 1;
      c->left = 0;
      for (int i = 0; i < 8; i++) c->left = c->left << 8 | c->header[i];
    } else {
      c->left -= (uint64_t)n;
    }
    if (c->left == 0) {
      if (write(fd, "k", 1) != 1) return 0;
      return 0;
    }
    int lowat = c->left < SINK_LOWAT ? (int)c->left : SINK_LOWAT;
    if (lowat != c->lowat && setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat) == 0) c->lowat = lowat;
    /* Level-triggered: after a short read the rest comes on a later turn. */
    if (!header && (size_t)n < want) return 1;
  }
  return 1;
}

/* An echo's payload is small: a short write means the peer is not reading, and ends it. Returns 0 when done. */
static int echo_read(struct served *c, int fd) {
  ssize_t n = read(fd, big, CHUNK);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (n == 0 || write(fd, big, (size_t)n) != n) return 0;
  if (c->kind == O_ECHO) return 1;
  if (c->left <= (uint64_t)n) return 0;
  c->left -= (uint64_t)n;
  return 1;
}

static void origin_read(struct served *s, int fd) {
  if (!(s[fd].kind == O_SINK ? sink_read(&s[fd], fd) : echo_read(&s[fd], fd))) origin_close(s, fd);
}

static void origin_accept(int ep, struct served *s, int max_fd, int lfd, int kind) {
  for (int i = 0; i < 256; i++) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (fd >= max_fd) {
      close(fd);
      continue;
    }
    s[fd] = (struct served){.kind = (unsigned char)kind, .open = 1, .left = ECHO_BYTES};
    watch(ep, fd, EPOLLIN | EPOLLRDHUP);
  }
}

static int origin_command(struct served *s, int max_fd) {
  char line[256];
  ssize_t n = read(0, line, sizeof line - 1);
  if (n <= 0) return 0;
  line[n] = 0;
  if (strstr(line, "close-echoes")) {
    int closed = 0;
    for (int fd = 0; fd < max_fd; fd++)
      if (s[fd].open && s[fd].kind == O_ECHO) origin_close(s, fd), closed++;
    printf("{\"closed\":%d}\n", closed);
    fflush(stdout);
  }
  return 1;
}

static int origin(void) {
  int max_fd = raise_fd_limit();
  struct served *s = calloc((size_t)max_fd, sizeof *s);
  int ep = epoll_create1(EPOLL_CLOEXEC), lfd[O_KINDS], port[O_KINDS];
  if (!s || ep < 0) fail("origin: out of memory or epoll");
  for (int k = 0; k < O_KINDS; k++) {
    lfd[k] = listener(k, &port[k]);
    watch(ep, lfd[k], EPOLLIN);
  }
  watch_stdin(ep);
  printf("{\"sink\":%d,\"echo\":%d,\"echo_once\":%d,\"pid\":%d}\n", port[O_SINK], port[O_ECHO], port[O_ONCE], getpid());
  fflush(stdout);
  struct epoll_event ev[MAX_EVENTS];
  for (;;) {
    int n = epoll_wait(ep, ev, MAX_EVENTS, 1000);
    if (n < 0 && errno != EINTR) fail("epoll_wait: %s", strerror(errno));
    for (int i = 0; i < n; i++) {
      if (ev[i].data.u64 == STDIN_TAG) {
        if (!origin_command(s, max_fd)) return 0;
        continue;
      }
      int fd = (int)ev[i].data.u64, k;
      for (k = 0; k < O_KINDS && lfd[k] != fd; k++) {}
      if (k < O_KINDS) origin_accept(ep, s, max_fd, fd, k);
      else if (s[fd].open) origin_read(s, fd);
    }
  }
}

/* ---------------------------------------------------------------- client */

enum mode { M_STREAM, M_RATE, M_IDLE };
enum proto { P_SOCKS5, P_HTTP, P_NONE };
enum state { S_FREE, S_CONNECTING, S_GREETING, S_AUTH, S_REPLY, S_HTTP, S_ECHO, S_CLOSING, S_HELD, S_SENDING, S_ACK };

struct conn {
  unsigned char state;
  unsigned short got;
  double started;
  double deadline;
  uint64_t sent;
  unsigned char in[512];
};

struct opts {
  enum mode mode;
  enum proto proto;
  int port;
  char host[256];
  int target_port;
  uint64_t bytes;
  /* Stream mode: parallel streams of `bytes` each, timed from the first one's start to the last one's acknowledgement. */
  int streams;
  int concurrency;
  double seconds;
  double per_second;
  int count;
  double hold_s;
  /* RFC 1929 request (version, ulen, user, plen, pass); empty: no authentication. */
  unsigned char auth[513];
  size_t auth_len;
};

struct client {
  struct opts o;
  int ep, max_fd;
  struct conn *c;
  int active;
  long started, completed, failed, held, released;
  uint32_t *latency_us;
  long latencies, latency_cap;
  double stream_began, stream_acked;
  unsigned char request[300];
  size_t request_len;
  double last_sweep;
};

static unsigned char payload[ECHO_BYTES];

static void build_request(struct client *k) {
  const struct opts *o = &k->o;
  struct in_addr ip;
  unsigned char *r = k->request;
  if (o->proto == P_HTTP) {
    k->request_len = (size_t)snprintf((char *)r, sizeof k->request, "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", o->host,
                                      o->target_port, o->host, o->target_port);
    return;
  }
  size_t n = 0;
  r[n++] = 5, r[n++] = 1, r[n++] = 0;
  if (inet_pton(AF_INET, o->host, &ip) == 1) {
    r[n++] = 1;
    memcpy(r + n, &ip, 4);
    n += 4;
  } else {
    size_t len = strlen(o->host);
    r[n++] = 3, r[n++] = (unsigned char)len;
    memcpy(r + n, o->host, len);
    n += len;
  }
  r[n++] = (unsigned char)(o->target_port >> 8), r[n++] = (unsigned char)o->target_port;
  k->request_len = n;
}

static int send_all(int fd, const void *data, size_t len) { return write(fd, data, len) == (ssize_t)len; }

static void drop(struct client *k, int fd, int ok) {
  close(fd);
  if (k->c[fd].state == S_HELD) k->held--, k->released++;
  else if (ok) k->completed++;
  else k->failed++;
  k->c[fd].state = S_FREE;
  k->active--;
}

static void open_one(struct client *k) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  k->started++;
  if (fd < 0 || fd >= k->max_fd) {
    if (fd >= 0) close(fd);
    k->failed++;
    return;
  }
  /* Each write of the handshake and echo waits for the answer to the last: Nagle never holds one back. */
  struct sockaddr_in a = loopback(k->o.port);
  double t = now_s();
  k->c[fd] = (struct conn){.state = S_CONNECTING, .started = t, .deadline = t + STEP_TIMEOUT_S};
  k->active++;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
    close(fd);
    k->c[fd].state = S_FREE;
    k->active--;
    k->failed++;
    return;
  }
  /* Edge-triggered, registered once: no epoll_ctl per state change. */
  watch(k->ep, fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET);
}

/* The tunnel is open: start what the mode does through it. */
static int tunnel_ready(struct client *k, int fd) {
  struct conn *c = &k->c[fd];
  c->got = 0;
  if (k->o.mode == M_STREAM) {
    unsigned char header[8];
    for (int i = 0; i < 8; i++) header[i] = (unsigned char)(k->o.bytes >> (56 - 8 * i));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!send_all(fd, header, 8)) return 0;
    c->state = S_SENDING;
    if (k->stream_began == 0) k->stream_began = now_s();
    c->deadline = now_s() + STREAM_TIMEOUT_S;
    return 1;
  }
  c->state = S_ECHO;
  return send_all(fd, payload, ECHO_BYTES);
}

static void record_latency(struct client *k, double since) {
  if (k->latencies >= k->latency_cap) {
    long cap = k->latency_cap ? k->latency_cap * 2 : 65536;
    uint32_t *grown = realloc(k->latency_us, (size_t)cap * sizeof *grown);
    if (!grown) return;
    k->latency_us = grown, k->latency_cap = cap;
  }
  k->latency_us[k->latencies++] = (uint32_t)((now_s() - since) * 1e6);
}

/* Bytes the proxy's reply takes, once enough of it is in; 0 while more is needed, -1 if it refused. */
static int reply_length(const struct conn *c) {
  if (c->got < 5) return 0;
  if (c->in[0] != 5 || c->in[1] != 0) return -1;
  int len = c->in[3] == 1 ? 10 : c->in[3] == 4 ? 22 : c->in[3] == 3 ? 7 + c->in[4] : -1;
  return len < 0 || c->got >= len ? len : 0;
}

/* Handles readiness on a client socket; returns 0 when the connection failed. */
static int step(struct client *k, int fd, uint32_t events) {
  struct conn *c = &k->c[fd];
  if (c->state == S_CONNECTING) {
    if (events & (EPOLLERR | EPOLLHUP) || !(events & EPOLLOUT)) return 0;
    /* Edge-triggered: the stream's first writes cannot wait for another EPOLLOUT. */
    if (k->o.proto == P_NONE) return tunnel_ready(k, fd) && (c->state != S_SENDING || step(k, fd, EPOLLOUT));
    if (k->o.proto == P_HTTP) return c->state = S_HTTP, send_all(fd, k->request, k->request_len);
    c->state = S_GREETING;
    return send_all(fd, k->o.auth_len ? "\5\1\2" : "\5\1\0", 3);
  }
  if (c->state == S_SENDING) {
    if (!(events & EPOLLOUT)) return !(events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP));
    while (c->sent < k->o.bytes) {
      uint64_t left = k->o.bytes - c->sent;
      ssize_t n = write(fd, big, left < CHUNK ? (size_t)left : CHUNK);
      if (n < 0) return errno == EAGAIN || errno == EINTR;
      c->sent += (uint64_t)n;
    }
    c->state = S_ACK;
    events = EPOLLIN;
  }
  for (int rounds = 0; rounds < 16; rounds++) {
    unsigned char *into = c->state == S_HELD || c->state == S_CLOSING ? big : c->in + c->got;
    size_t room = c->state == S_HELD || c->state == S_CLOSING ? CHUNK : sizeof c->in - c->got;
    if (room == 0) return 0;
    ssize_t n = read(fd, into, room);
    if (n < 0) return errno == EAGAIN ? 1 : errno == EINTR;
    if (n == 0) {
      if (c->state != S_CLOSING && c->state != S_HELD) return 0;
      drop(k, fd, 1);
      return 1;
    }
    /* A short read drained the socket; unless the peer's FIN is in, the next edge brings more. */
    int drained = (size_t)n < room && !(events & EPOLLRDHUP);
    if (c->state == S_HELD || c->state == S_CLOSING) {
      if (drained) return 1;
      continue;
    }
    c->got = (unsigned short)(c->got + n);
    switch (c->state) {
      case S_GREETING:
        if (c->got < 2) break;
        if (c->in[0] != 5 || c->in[1] != (k->o.auth_len ? 2 : 0) || c->got > 2) return 0;
        c->got = 0;
        if (k->o.auth_len) {
          c->state = S_AUTH;
          if (!send_all(fd, k->o.auth, k->o.auth_len)) return 0;
          break;
        }
        c->state = S_REPLY;
        if (!send_all(fd, k->request, k->request_len)) return 0;
        break;
      case S_AUTH:
        if (c->got < 2) break;
        if (c->in[0] != 1 || c->in[1] != 0 || c->got > 2) return 0;
        c->got = 0, c->state = S_REPLY;
        if (!send_all(fd, k->request, k->request_len)) return 0;
        break;
      case S_REPLY: {
        int len = reply_length(c);
        if (len < 0 || (len > 0 && c->got > len)) return 0;
        if (len > 0 && !tunnel_ready(k, fd)) return 0;
        break;
      }
      case S_HTTP: {
        c->in[c->got < sizeof c->in ? c->got : sizeof c->in - 1] = 0;
        char *end = strstr((char *)c->in, "\r\n\r\n");
        if (!end) break;
        if (strncmp((char *)c->in, "HTTP/1.", 7) != 0 || strncmp((char *)c->in + 8, " 200", 4) != 0) return 0;
        if ((unsigned char *)end + 4 != c->in + c->got) return 0;
        if (!tunnel_ready(k, fd)) return 0;
        break;
      }
      case S_ECHO:
        if (c->got < ECHO_BYTES) break;
        if (c->got > ECHO_BYTES || memcmp(c->in, payload, ECHO_BYTES) != 0) return 0;
        if (k->o.mode == M_RATE) {
          record_latency(k, c->started);
          c->state = S_CLOSING;
        } else {
          c->state = S_HELD;
          k->held++;
        }
        break;
      case S_ACK:
        k->stream_acked = now_s();
        drop(k, fd, 1);
        return 1;
      default:
        return 0;
    }
    if (c->state == S_SENDING) return step(k, fd, EPOLLOUT);
    if (drained) return 1;
  }
  return 1;
}

/* Fails the connections whose step timed out; held tunnels have no step. */
static void sweep(struct client *k, double t) {
  if (t - k->last_sweep < 0.1) return;
  k->last_sweep = t;
  for (int fd = 0; fd < k->max_fd; fd++) {
    struct conn *c = &k->c[fd];
    if (c->state != S_FREE && c->state != S_HELD && t > c->deadline) drop(k, fd, 0);
  }
}

/* One turn of the loop; returns 0 when stdin ended (the bench is gone). */
static int turn(struct client *k, int timeout_ms) {
  struct epoll_event ev[MAX_EVENTS];
  int n = epoll_wait(k->ep, ev, MAX_EVENTS, timeout_ms);
  if (n < 0 && errno != EINTR) fail("epoll_wait: %s", strerror(errno));
  for (int i = 0; i < n; i++) {
    if (ev[i].data.u64 == STDIN_TAG) {
      char line[64];
      if (read(0, line, sizeof line) <= 0) return 0;
      continue;
    }
    int fd = (int)ev[i].data.u64;
    if (k->c[fd].state == S_FREE) continue;
    if (!step(k, fd, ev[i].events) && k->c[fd].state != S_FREE) drop(k, fd, 0);
  }
  sweep(k, now_s());
  return 1;
}

static int by_value(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static uint32_t percentile(const uint32_t *sorted, long n, double p) {
  if (n == 0) return 0;
  long i = (long)(p * (double)n + 0.999999) - 1;
  return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static void print_cpu(void) {
  double user, sys;
  cpu_us(&user, &sys);
  printf(",\"cpu_user_us\":%.0f,\"cpu_sys_us\":%.0f}\n", user, sys);
  fflush(stdout);
}

static void run_stream(struct client *k) {
  double start = now_s();
  for (int i = 0; i < k->o.streams; i++) open_one(k);
  while (k->active > 0 && now_s() - start < STREAM_TIMEOUT_S + STEP_TIMEOUT_S)
    if (!turn(k, 100)) break;
  if (k->completed != k->o.streams) fail("%ld of %d streams of %llu bytes were acknowledged", k->completed, k->o.streams, (unsigned long long)k->o.bytes);
  double seconds = k->stream_acked - k->stream_began;
  printf("{\"mode\":\"stream\",\"streams\":%d,\"bytes\":%llu,\"seconds\":%.6f", k->o.streams, (unsigned long long)k->o.bytes * (unsigned long long)k->o.streams, seconds);
  print_cpu();
}

/* Connections due by t: all of them unpaced; paced, one every 1/R s from the start. */
static long rate_due(const struct client *k, double start, double t) {
  return k->o.per_second > 0 ? (long)((t - start) * k->o.per_second) + 1 : LONG_MAX;
}

static void run_rate(struct client *k) {
  double start = now_s(), stop = start + k->o.seconds;
  /* Paced, the loop wakes every millisecond to start what is due. */
  int wait_ms = k->o.per_second > 0 ? 1 : 50;
  while (now_s() < stop) {
    long due = rate_due(k, start, now_s());
    /* Bounded: a proxy that refuses at once must not keep this loop from the clock. */
    for (int i = 0; i < k->o.concurrency && k->active < k->o.concurrency && k->started < due; i++) open_one(k);
    if (!turn(k, wait_ms)) break;
  }
  /* Cycles under way finish; their step timeout bounds this. */
  while (k->active > 0 && now_s() < stop + STEP_TIMEOUT_S)
    if (!turn(k, 50)) break;
  double seconds = now_s() - start;
  double user, sys;
  cpu_us(&user, &sys);
  long n = k->latencies;
  qsort(k->latency_us, (size_t)n, sizeof *k->latency_us, by_value);
  printf("{\"mode\":\"rate\",\"completed\":%ld,\"failed\":%ld,\"seconds\":%.6f,\"latency_us\":{\"p50\":%u,\"p90\":%u,\"p99\":%u,\"max\":%u}"
         ",\"cpu_user_us\":%.0f,\"cpu_sys_us\":%.0f}\n",
         k->completed, k->failed + k->active, seconds, percentile(k->latency_us, n, 0.5), percentile(k->latency_us, n, 0.9),
         percentile(k->latency_us, n, 0.99), percentile(k->latency_us, n, 1), user, sys);
  fflush(stdout);
}

static void run_idle(struct client *k) {
  double start = now_s();
  while (k->started < k->o.count || k->active > k->held) {
    if (now_s() - start > 120) fail("idle: %ld of %d tunnels opened in 120 s", k->held, k->o.count);
    while (k->started < k->o.count && k->active - k->held < k->o.concurrency) open_one(k);
    if (!turn(k, 50)) return;
  }
  /* A tunnel the proxy dropped while the others were opening does not count as held. */
  turn(k, 0);
  printf("{\"mode\":\"idle\",\"event\":\"held\",\"held\":%ld,\"failed\":%ld,\"seconds\":%.6f", k->held, k->failed, now_s() - start);
  print_cpu();
  long held = k->held;
  double release = now_s();
  while (k->active > 0 && now_s() - release < k->o.hold_s)
    if (!turn(k, 100)) break;
  printf("{\"mode\":\"idle\",\"event\":\"done\",\"held\":%ld,\"closed_by_origin\":%ld", held, k->released);
  print_cpu();
}

static void usage(void) {
  fail("usage: weir-load origin | weir-load stream|rate|idle --port P --proto socks5|http|none --target HOST:PORT "
       "[--bytes N] [--streams S] [--concurrency C] [--ms D] [--per-second R] [--count N] [--hold-ms H] [--auth USER:PASS]");
}

/* USER:PASS as the RFC 1929 request; each part 1 to 255 bytes. */
static void set_auth(struct opts *o, const char *v) {
  const char *colon = strchr(v, ':');
  size_t ulen = colon ? (size_t)(colon - v) : 0, plen = colon ? strlen(colon + 1) : 0;
  if (ulen < 1 || ulen > 255 || plen < 1 || plen > 255) usage();
  unsigned char *a = o->auth;
  a[0] = 1, a[1] = (unsigned char)ulen;
  memcpy(a + 2, v, ulen);
  a[2 + ulen] = (unsigned char)plen;
  memcpy(a + 3 + ulen, colon + 1, plen);
  o->auth_len = 3 + ulen + plen;
}

static struct opts parse(int argc, char **argv) {
  struct opts o = {.proto = P_SOCKS5, .streams = 1, .concurrency = 50, .seconds = 3, .count = 5000, .hold_s = 120};
  if (!strcmp(argv[1], "stream")) o.mode = M_STREAM;
  else if (!strcmp(argv[1], "rate")) o.mode = M_RATE;
  else if (!strcmp(argv[1], "idle")) o.mode = M_IDLE;
  else usage();
  for (int i = 2; i + 1 < argc; i += 2) {
    const char *name = argv[i], *v = argv[i + 1];
    if (!strcmp(name, "--port")) o.port = atoi(v);
    else if (!strcmp(name, "--proto")) o.proto = !strcmp(v, "http") ? P_HTTP : !strcmp(v, "none") ? P_NONE : !strcmp(v, "socks5") ? P_SOCKS5 : (usage(), P_NONE);
    else if (!strcmp(name, "--target")) {
      const char *colon = strrchr(v, ':');
      if (!colon || colon - v >= (long)sizeof o.host || colon == v) usage();
      memcpy(o.host, v, (size_t)(colon - v));
      o.host[colon - v] = 0;
      o.target_port = atoi(colon + 1);
    } else if (!strcmp(name, "--bytes")) o.bytes = strtoull(v, NULL, 10);
    else if (!strcmp(name, "--streams")) o.streams = atoi(v);
    else if (!strcmp(name, "--concurrency")) o.concurrency = atoi(v);
    else if (!strcmp(name, "--ms")) o.seconds = atof(v) / 1000;
    else if (!strcmp(name, "--per-second")) {
      char *end;
      o.per_second = strtod(v, &end);
      if (end == v || *end) usage();
    }
    else if (!strcmp(name, "--count")) o.count = atoi(v);
    else if (!strcmp(name, "--hold-ms")) o.hold_s = atof(v) / 1000;
    else if (!strcmp(name, "--auth")) set_auth(&o, v);
    else usage();
  }
  if (o.port <= 0 || o.port > 65535 || o.target_port <= 0 || o.target_port > 65535 || o.concurrency < 1) usage();
  if (o.mode == M_STREAM && (o.bytes == 0 || o.streams < 1 || o.streams > 64)) usage();
  if (o.auth_len && o.proto != P_SOCKS5) usage();
  if (o.seconds > 600 || o.hold_s > 600 || o.count < 1 || !(o.per_second >= 0 && o.per_second <= 1e6)) usage();
  return o;
}

int main(int argc, char **argv) {
  /* A peer that closes mid-write fails that connection (EPIPE), not the process. */
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) usage();
  if (!strcmp(argv[1], "origin")) return origin();
  struct client k = {.o = parse(argc, argv)};
  memset(big, 0x61, sizeof big);
  memset(payload, 0x2a, sizeof payload);
  k.max_fd = raise_fd_limit();
  k.c = calloc((size_t)k.max_fd, sizeof *k.c);
  k.ep = epoll_create1(EPOLL_CLOEXEC);
  if (!k.c || k.ep < 0) fail("client: out of memory or epoll");
  build_request(&k);
  watch_stdin(k.ep);
  if (k.o.mode == M_STREAM) run_stream(&k);
  else if (k.o.mode == M_RATE) run_rate(&k);
  else run_idle(&k);
  return 0;
}
