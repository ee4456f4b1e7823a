/*
 * Hostwarden's native UDP fast path (Linux): one socket read with recvmmsg in batches, one JS call
 * per batch, one sendmmsg for the batch's replies. Node 20's dgram costs a JS callback, an rinfo
 * object and an address string per datagram and a send syscall per reply; that, not the answer
 * path, bounded the server's rate.
 *
 * JS owns the three shared buffers (packets in, replies out, lengths) and passes them to open();
 * this file keeps references to them until close, so they cannot move or be collected while the
 * kernel writes into them. Slot i of `in` holds datagram i of the batch, meta[2i] its length (-1 when
 * it did not fit the slot, so JS skips it); JS writes reply i into slot i of `out` and its length into
 * meta[2i+1] (0 = no reply).
 *
 * The packet cache (cache(), flush()): replies JS marked cacheable are kept keyed by the query's
 * bytes after the ID (question name ASCII-lower-cased), and later queries with the same key are
 * answered here, before JS is called; see the block above pc_key for what it may hold.
 *
 * N-API plus libuv from Node's own headers only: no node-gyp, no C++.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <node_api.h>
#include <uv.h>

#define BATCH 64
/* Batches read per wakeup at most, so one busy socket cannot starve timers, TCP and IPC. */
#define MAX_BATCHES 8
#define RCVBUF_BYTES (4 << 20)
/* One sendmmsg carries up to BATCH replies of up to 4 KiB (EDNS) each, plus skb overhead: Linux's
 * default send buffer (net.core.wmem_default, 208 KiB) can be full before a batch of large replies
 * is through, and the rest of the batch would be dropped (EAGAIN). */
#define SNDBUF_BYTES (4 << 20)

/* Longest cached key (a query less its ID) and reply: what a 512-byte or 1232-byte EDNS exchange
 * needs; larger messages are always answered by JS. */
#define PC_KEY_MAX 512
#define PC_REPLY_MAX 1232

/* One cached reply: its key, then the reply as JS wrote it (the first query's ID and name case). */
typedef struct pc_entry {
  uint32_t hash;
  uint16_t klen, rlen, qend;
  /* The metrics slot JS gave at insertion (QueryCounters' rcode x qtype slot), counted per hit. */
  int32_t slot;
  uint8_t data[];
} pc_entry;

typedef struct {
  /* 2 ways per bucket, way 0 the most recently used; NULL when the cache is off. */
  pc_entry **table;
  uint32_t mask;
  size_t bytes, max_bytes;
  /* Bumped by flush(): replies JS wrote before a flush are not inserted after it. */
  uint32_t gen;
  int32_t *insert; /* JS's per-slot "insert reply i" marks: metrics slot + 1, 0 = do not cache */
  double *hit_counts; /* JS's per-metrics-slot hit counts, drained by JS */
  size_t hit_slots;
  double hits, misses, entries, inserts;
} pcache_t;

typedef struct {
  uv_poll_t poll;
  int fd;
  int closing;
  /* The JS external and the libuv handle each hold one; whichever lets go last frees the struct. */
  int holders;
  /* Set while JS runs: close() from inside the batch handler must not free the async context
   * napi_make_callback is still using. */
  int in_callback;
  int async_pending_destroy;
  napi_env env;
  napi_ref callback, in_ref, out_ref, meta_ref, insert_ref, hits_ref;
  napi_async_context async;
  uint8_t *in, *out;
  int32_t *meta;
  size_t slot_in, slot_out;
  /* Receive headers the last recvmmsg filled (their msg_namelen needs resetting). */
  int filled;
  struct mmsghdr rmsg[BATCH];
  struct iovec riov[BATCH];
  struct sockaddr_storage addr[BATCH];
  struct mmsghdr smsg[BATCH];
  struct iovec siov[BATCH];
  /* Replies dropped because the socket buffer was full or the send failed; oversized datagrams. */
  double send_drops, recv_errors, truncated;
  pcache_t pc;
} udp_t;

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, "ERR_NATIVE_UDP", "N-API call failed: " #call); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static napi_value throw_errno(napi_env env, int err, const char *what) {
  char msg[160];
  const char *name = uv_err_name(uv_translate_sys_error(err));
  snprintf(msg, sizeof msg, "%s %s: %s", what, name, strerror(err));
  napi_throw_error(env, name, msg);
  return NULL;
}

static void pc_flush(pcache_t *c) {
  c->gen++;
  if (c->table == NULL) return;
  for (size_t i = 0; i <= 2 * (size_t)c->mask + 1; i++) {
    free(c->table[i]);
    c->table[i] = NULL;
  }
  c->bytes = 0;
  c->entries = 0;
}

static void pc_free(pcache_t *c) {
  pc_flush(c);
  free(c->table);
  c->table = NULL;
  c->insert = NULL;
  c->hit_counts = NULL;
}

static void release(udp_t *u) {
  if (--u->holders == 0) {
    pc_free(&u->pc);
    free(u);
  }
}

static void on_closed(uv_handle_t *h) { release(h->data); }

/* Stops reading and closes the socket at once, so the port is free when close() returns (closing
 * the fd is allowed once the poll handle is stopped). `from_js` is false in the GC finalizer, where
 * the references are being collected anyway. */
static void shut(udp_t *u, int from_js) {
  if (u->closing) return;
  u->closing = 1;
  uv_poll_stop(&u->poll);
  close(u->fd);
  u->fd = -1;
  if (from_js) {
    if (u->callback != NULL) napi_delete_reference(u->env, u->callback);
    if (u->in_ref != NULL) napi_delete_reference(u->env, u->in_ref);
    if (u->out_ref != NULL) napi_delete_reference(u->env, u->out_ref);
    if (u->meta_ref != NULL) napi_delete_reference(u->env, u->meta_ref);
    if (u->insert_ref != NULL) napi_delete_reference(u->env, u->insert_ref);
    if (u->hits_ref != NULL) napi_delete_reference(u->env, u->hits_ref);
    u->insert_ref = u->hits_ref = NULL;
    if (u->async != NULL) {
      if (u->in_callback) u->async_pending_destroy = 1;
      else napi_async_destroy(u->env, u->async);
    }
  }
  uv_close((uv_handle_t *)&u->poll, on_closed);
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  udp_t *u = data;
  shut(u, 0);
  release(u);
}

/* Runs the JS batch handler as a proper callback: microtasks drain after it, and an exception
 * becomes an uncaught exception of the process (as it would from a dgram 'message' listener). */
static void call_js(udp_t *u, int n) {
  napi_env env = u->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value fn, recv, arg, result;
  if (napi_get_reference_value(env, u->callback, &fn) == napi_ok && napi_get_global(env, &recv) == napi_ok &&
      napi_create_int32(env, n, &arg) == napi_ok) {
    u->in_callback = 1;
    napi_status st = napi_make_callback(env, u->async, recv, fn, 1, &arg, &result);
    u->in_callback = 0;
    if (u->async_pending_destroy) {
      u->async_pending_destroy = 0;
      napi_async_destroy(env, u->async);
    }
    if (st != napi_ok) {
      bool pending = false;
      napi_is_exception_pending(env, &pending);
      if (pending) {
        napi_value err;
        napi_get_and_clear_last_exception(env, &err);
        napi_fatal_exception(env, err);
      }
    }
  }
  napi_close_handle_scope(env, scope);
}

static void send_replies(udp_t *u, int n) {
  int count = 0;
  for (int i = 0; i < n; i++) {
    int32_t len = u->meta[2 * i + 1];
    if (len <= 0 || (size_t)len > u->slot_out) continue;
    u->siov[count].iov_base = u->out + (size_t)i * u->slot_out;
    u->siov[count].iov_len = (size_t)len;
    struct msghdr *h = &u->smsg[count].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = &u->addr[i];
    h->msg_namelen = u->rmsg[i].msg_hdr.msg_namelen;
    h->msg_iov = &u->siov[count];
    h->msg_iovlen = 1;
    count++;
  }
  int off = 0;
  while (off < count) {
    int sent = sendmmsg(u->fd, u->smsg + off, (unsigned)(count - off), MSG_DONTWAIT);
    if (sent > 0) {
      off += sent;
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      u->send_drops += count - off; /* the kernel buffer is full: a resolver retries, like a lost packet */
      return;
    } else {
      u->send_drops += 1; /* this destination failed (EPERM, unreachable...): skip it, send the rest */
      off++;
    }
  }
}


/*
 * Packet cache. JS decides what may be cached (the Responder marks only NOERROR and NXDOMAIN
 * answers from a zone to plain QUERYs without TSIG, EDNS options or truncation), so the answer
 * is a function of the key alone: every byte after the ID, with the question name's A-Z folded
 * as the Responder folds them. A hit copies the reply and writes the query's ID and question
 * (the client's name case, 0x20) over it; the flags, the OPT record and the question's length are
 * part of the key, so the rest of the reply is what JS would have written.
 */

/* Writes the key of datagram p[0, len) into key and returns its length (0: not a cacheable
 * shape); *qend is the end of its question in the datagram. */
static size_t pc_key(const uint8_t *p, size_t len, uint8_t *key, uint32_t *hash, size_t *qend) {
  if (len < 17 || len - 2 > PC_KEY_MAX || (p[2] & 0x80) != 0) return 0;
  size_t klen = len - 2;
  memcpy(key, p + 2, klen);
  size_t o = 10; /* the question name, at offset 12 of the datagram */
  for (int labels = 0;; labels++) {
    if (labels > 127 || o >= klen) return 0;
    uint8_t l = key[o];
    if (l == 0) break;
    if (l > 63 || o + 1 + l > klen) return 0;
    for (size_t i = o + 1; i <= o + l; i++)
      if (key[i] >= 'A' && key[i] <= 'Z') key[i] |= 0x20;
    o += 1 + (size_t)l;
  }
  if (o + 5 > klen) return 0;
  *qend = o + 5 + 2;
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < klen; i++) h = (h ^ key[i]) * 16777619u;
  *hash = h;
  return klen;
}

static pc_entry **pc_bucket(pcache_t *c, uint32_t hash) { return &c->table[2 * (size_t)(hash & c->mask)]; }

static int pc_same(const pc_entry *e, const uint8_t *key, size_t klen, uint32_t hash) {
  return e != NULL && e->hash == hash && e->klen == klen && memcmp(e->data, key, klen) == 0;
}

/* Answers datagram i from the cache into its reply slot; 1 on a hit. */
static int pc_answer(udp_t *u, int i) {
  pcache_t *c = &u->pc;
  uint8_t key[PC_KEY_MAX];
  uint32_t hash = 0;
  size_t qend = 0;
  const uint8_t *q = u->in + (size_t)i * u->slot_in;
  size_t klen = pc_key(q, u->rmsg[i].msg_len, key, &hash, &qend);
  if (klen == 0) return 0;
  pc_entry **b = pc_bucket(c, hash);
  pc_entry *e = NULL;
  if (pc_same(b[0], key, klen, hash)) {
    e = b[0];
  } else if (pc_same(b[1], key, klen, hash)) {
    e = b[1];
    b[1] = b[0];
    b[0] = e;
  }
  if (e == NULL || e->rlen > u->slot_out) return 0;
  uint8_t *out = u->out + (size_t)i * u->slot_out;
  memcpy(out, e->data + e->klen, e->rlen);
  out[0] = q[0];
  out[1] = q[1];
  memcpy(out + 12, q + 12, qend - 12);
  u->meta[2 * i] = -1; /* JS skips it */
  u->meta[2 * i + 1] = e->rlen;
  c->hits += 1;
  if (e->slot >= 0 && (size_t)e->slot < c->hit_slots) c->hit_counts[e->slot] += 1;
  return 1;
}

/* Keeps reply i (written by JS, marked cacheable) for later queries with datagram i's key. */
static void pc_insert(udp_t *u, int i) {
  pcache_t *c = &u->pc;
  int32_t mark = c->insert[i];
  int32_t rlen = u->meta[2 * i + 1];
  if (mark <= 0 || rlen <= 0 || rlen > PC_REPLY_MAX || u->meta[2 * i] <= 0) return;
  uint8_t key[PC_KEY_MAX];
  uint32_t hash = 0;
  size_t qend = 0;
  size_t klen = pc_key(u->in + (size_t)i * u->slot_in, u->rmsg[i].msg_len, key, &hash, &qend);
  if (klen == 0 || (size_t)rlen < qend) return;
  size_t size = sizeof(pc_entry) + klen + (size_t)rlen;
  pc_entry **b = pc_bucket(c, hash);
  /* The entry to replace: the same key (two equal queries in one batch), else the LRU way. */
  int way = pc_same(b[0], key, klen, hash) ? 0 : 1;
  size_t victim = b[way] == NULL ? 0 : sizeof(pc_entry) + b[way]->klen + b[way]->rlen;
  if (c->bytes - victim + size > c->max_bytes) return;
  pc_entry *e = malloc(size);
  if (e == NULL) return;
  e->hash = hash;
  e->klen = (uint16_t)klen;
  e->rlen = (uint16_t)rlen;
  e->qend = (uint16_t)qend;
  e->slot = mark - 1;
  memcpy(e->data, key, klen);
  memcpy(e->data + klen, u->out + (size_t)i * u->slot_out, (size_t)rlen);
  if (b[way] != NULL) {
    free(b[way]);
    c->entries -= 1;
  }
  c->bytes = c->bytes - victim + size;
  if (way == 1) b[1] = b[0];
  b[0] = e;
  c->entries += 1;
  c->inserts += 1;
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  (void)events;
  udp_t *u = handle->data;
  if (status < 0) {
    /* libuv stops the handle on POLLERR. Clear the socket's pending error and carry on: one bad
     * ICMP report must not end the DNS service. */
    u->recv_errors += 1;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(u->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (!u->closing) uv_poll_start(&u->poll, UV_READABLE, on_readable);
    return;
  }
  for (int b = 0; b < MAX_BATCHES && !u->closing; b++) {
    /* The headers are set up once (open); the kernel writes back only the address length and the
     * flags of the datagrams it fills, so only those need resetting. */
    for (int i = 0; i < u->filled; i++) u->rmsg[i].msg_hdr.msg_namelen = sizeof u->addr[i];
    u->filled = 0;
    int n = recvmmsg(u->fd, u->rmsg, BATCH, MSG_DONTWAIT, NULL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) u->recv_errors += 1;
      return;
    }
    if (n == 0) return;
    u->filled = n;
    int cached = u->pc.table != NULL, misses = 0;
    for (int i = 0; i < n; i++) {
      int trunc = (u->rmsg[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
      if (trunc) u->truncated += 1;
      u->meta[2 * i] = trunc ? -1 : (int32_t)u->rmsg[i].msg_len;
      u->meta[2 * i + 1] = 0;
      if (!cached) continue;
      u->pc.insert[i] = 0;
      if (!trunc && pc_answer(u, i)) continue;
      misses++;
    }
    /* JS runs only for the misses' batch; a batch answered wholly from the cache never enters JS. */
    if (!cached || misses > 0) {
      uint32_t gen = u->pc.gen;
      u->pc.misses += misses;
      call_js(u, n);
      if (u->closing) return; /* JS closed the socket from its handler */
      if (cached && u->pc.table != NULL && u->pc.gen == gen)
        for (int i = 0; i < n; i++) pc_insert(u, i);
    }
    send_replies(u, n);
    if (n < BATCH) return; /* drained */
  }
}

static int buffer_arg(napi_env env, napi_value v, void **data, size_t *len) {
  bool ok = false;
  if (napi_is_buffer(env, v, &ok) != napi_ok || !ok) return 0;
  return napi_get_buffer_info(env, v, data, len) == napi_ok;
}

/* open(host, port, reusePort, in, out, meta: Buffer, slotIn, slotOut, onBatch) → handle */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 9) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "open: 9 arguments expected");
    return NULL;
  }
  char host[64];
  size_t hostlen = 0;
  int32_t port = 0, slot_in = 0, slot_out = 0;
  bool reuse = false;
  void *in = NULL, *out = NULL, *meta = NULL;
  size_t in_len = 0, out_len = 0, meta_len = 0;
  napi_valuetype cbtype;
  if (napi_get_value_string_utf8(env, argv[0], host, sizeof host, &hostlen) != napi_ok ||
      napi_get_value_int32(env, argv[1], &port) != napi_ok || napi_get_value_bool(env, argv[2], &reuse) != napi_ok ||
      !buffer_arg(env, argv[3], &in, &in_len) || !buffer_arg(env, argv[4], &out, &out_len) ||
      !buffer_arg(env, argv[5], &meta, &meta_len) || napi_get_value_int32(env, argv[6], &slot_in) != napi_ok ||
      napi_get_value_int32(env, argv[7], &slot_out) != napi_ok || napi_typeof(env, argv[8], &cbtype) != napi_ok ||
      cbtype != napi_function || port < 0 || port > 65535 || slot_in <= 0 || slot_out <= 0 ||
      in_len < (size_t)slot_in * BATCH || out_len < (size_t)slot_out * BATCH || meta_len < sizeof(int32_t) * 2 * BATCH ||
      ((uintptr_t)meta % sizeof(int32_t)) != 0) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "open: bad arguments");
    return NULL;
  }

  struct sockaddr_storage ss;
  socklen_t sslen;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
  int family;
  if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
    family = AF_INET;
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    sslen = sizeof *a4;
  } else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
    family = AF_INET6;
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    sslen = sizeof *a6;
  } else {
    return throw_errno(env, EINVAL, "bind (not an IP address)");
  }

  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, errno, "socket");
  int one = 1, zero = 0, rcvbuf = RCVBUF_BYTES, sndbuf = SNDBUF_BYTES;
  /* Like dgram's ipv6Only: false, so "::" also takes IPv4 (as v4-mapped addresses). */
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    int e = errno;
    close(fd);
    return throw_errno(env, e, "setsockopt SO_REUSEPORT");
  }
  /* Best effort: the kernel caps them at net.core.rmem_max and net.core.wmem_max. */
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  if (bind(fd, (struct sockaddr *)&ss, sslen) != 0) {
    int e = errno;
    close(fd);
    return throw_errno(env, e, "bind");
  }

  uv_loop_t *loop = NULL;
  udp_t *u = calloc(1, sizeof *u);
  if (u == NULL || napi_get_uv_event_loop(env, &loop) != napi_ok) {
    free(u);
    close(fd);
    return throw_errno(env, ENOMEM, "open");
  }
  u->fd = fd;
  u->env = env;
  u->in = in;
  u->out = out;
  u->meta = meta;
  u->slot_in = (size_t)slot_in;
  u->slot_out = (size_t)slot_out;
  for (int i = 0; i < BATCH; i++) {
    u->riov[i].iov_base = u->in + (size_t)i * u->slot_in;
    u->riov[i].iov_len = u->slot_in;
    struct msghdr *h = &u->rmsg[i].msg_hdr;
    h->msg_name = &u->addr[i];
    h->msg_namelen = sizeof u->addr[i];
    h->msg_iov = &u->riov[i];
    h->msg_iovlen = 1;
  }
  napi_value name, resource;
  if (uv_poll_init(loop, &u->poll, fd) != 0) {
    free(u);
    close(fd);
    return throw_errno(env, EINVAL, "uv_poll_init");
  }
  u->poll.data = u;
  if (napi_create_reference(env, argv[8], 1, &u->callback) != napi_ok || napi_create_reference(env, argv[3], 1, &u->in_ref) != napi_ok ||
      napi_create_reference(env, argv[4], 1, &u->out_ref) != napi_ok || napi_create_reference(env, argv[5], 1, &u->meta_ref) != napi_ok ||
      napi_create_string_utf8(env, "HostwardenUdp", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_object(env, &resource) != napi_ok || napi_async_init(env, resource, name, &u->async) != napi_ok ||
      uv_poll_start(&u->poll, UV_READABLE, on_readable) != 0) {
    u->holders = 1; /* only the libuv handle */
    shut(u, 1);
    napi_throw_error(env, "ERR_NATIVE_UDP", "open: could not register the socket");
    return NULL;
  }
  u->holders = 2;
  napi_value external;
  if (napi_create_external(env, u, finalize, NULL, &external) != napi_ok) {
    u->holders = 1;
    shut(u, 1);
    napi_throw_error(env, "ERR_NATIVE_UDP", "open: could not create the handle");
    return NULL;
  }
  return external;
}

static udp_t *handle_arg(napi_env env, napi_callback_info info, napi_value *argv, size_t want) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < want) return NULL;
  void *p = NULL;
  napi_valuetype t;
  if (napi_typeof(env, argv[0], &t) != napi_ok || t != napi_external || napi_get_value_external(env, argv[0], &p) != napi_ok) return NULL;
  return p;
}

/* port(handle) → the bound port (the kernel's choice for port 0) */
static napi_value js_port(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  udp_t *u = handle_arg(env, info, argv, 1);
  if (u == NULL || u->closing) {
    napi_throw_error(env, "ERR_NATIVE_UDP", "port: socket closed");
    return NULL;
  }
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  if (getsockname(u->fd, (struct sockaddr *)&ss, &len) != 0) return throw_errno(env, errno, "getsockname");
  int port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) : ntohs(((struct sockaddr_in *)&ss)->sin_port);
  CHECK(napi_create_int32(env, port, &out));
  return out;
}

/* peer(handle, i) → source address of datagram i of the current batch, as dgram's rinfo.address */
static napi_value js_peer(napi_env env, napi_callback_info info) {
  napi_value argv[2], out;
  int32_t i = -1;
  udp_t *u = handle_arg(env, info, argv, 2);
  if (u == NULL || napi_get_value_int32(env, argv[1], &i) != napi_ok || i < 0 || i >= BATCH) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "peer: bad arguments");
    return NULL;
  }
  char text[INET6_ADDRSTRLEN] = "";
  struct sockaddr_storage *ss = &u->addr[i];
  if (ss->ss_family == AF_INET) inet_ntop(AF_INET, &((struct sockaddr_in *)ss)->sin_addr, text, sizeof text);
  else if (ss->ss_family == AF_INET6) inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ss)->sin6_addr, text, sizeof text);
  CHECK(napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &out));
  return out;
}

/* cache(handle, entries, maxBytes, insert: Buffer (int32 x batch), hits: Buffer (float64 x slots)):
 * turns the packet cache on with room for `entries` replies (rounded down to a power of two) and
 * at most maxBytes of them; entries 0 turns it off. Either way the cache starts empty. */
static napi_value js_cache(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  int32_t entries = -1;
  double max_bytes = -1;
  void *insert = NULL, *hits = NULL;
  size_t insert_len = 0, hits_len = 0;
  udp_t *u = handle_arg(env, info, argv, 5);
  if (u == NULL || napi_get_value_int32(env, argv[1], &entries) != napi_ok || napi_get_value_double(env, argv[2], &max_bytes) != napi_ok ||
      !buffer_arg(env, argv[3], &insert, &insert_len) || !buffer_arg(env, argv[4], &hits, &hits_len) || entries < 0 ||
      entries > (1 << 24) || !(max_bytes >= 0) || insert_len < sizeof(int32_t) * BATCH || ((uintptr_t)insert % sizeof(int32_t)) != 0 ||
      ((uintptr_t)hits % sizeof(double)) != 0) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "cache: bad arguments");
    return NULL;
  }
  if (u->closing) {
    napi_throw_error(env, "ERR_NATIVE_UDP", "cache: socket closed");
    return NULL;
  }
  pc_free(&u->pc);
  if (u->insert_ref != NULL) napi_delete_reference(env, u->insert_ref);
  if (u->hits_ref != NULL) napi_delete_reference(env, u->hits_ref);
  u->insert_ref = u->hits_ref = NULL;
  if (entries < 2) return NULL;
  uint32_t buckets = 1;
  while (buckets * 2 <= (uint32_t)entries / 2) buckets *= 2;
  u->pc.table = calloc(2 * (size_t)buckets, sizeof(pc_entry *));
  if (u->pc.table == NULL) return throw_errno(env, ENOMEM, "cache");
  if (napi_create_reference(env, argv[3], 1, &u->insert_ref) != napi_ok || napi_create_reference(env, argv[4], 1, &u->hits_ref) != napi_ok) {
    pc_free(&u->pc);
    napi_throw_error(env, "ERR_NATIVE_UDP", "cache: could not keep the buffers");
    return NULL;
  }
  u->pc.mask = buckets - 1;
  u->pc.max_bytes = (size_t)max_bytes;
  u->pc.insert = insert;
  u->pc.hit_counts = hits;
  u->pc.hit_slots = hits_len / sizeof(double);
  return NULL;
}

/* flush(handle): empties the packet cache (a zone changed); replies JS is writing are not kept. */
static napi_value js_flush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  udp_t *u = handle_arg(env, info, argv, 1);
  if (u == NULL) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "flush: bad arguments");
    return NULL;
  }
  pc_flush(&u->pc);
  return NULL;
}

/* stats(handle) → [sendDrops, recvErrors, truncated, cacheHits, cacheMisses, cacheEntries,
 * cacheBytes, cacheInserts] since open (the entries and bytes: now) */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1], arr, v;
  udp_t *u = handle_arg(env, info, argv, 1);
  if (u == NULL) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "stats: bad arguments");
    return NULL;
  }
  double vals[8] = {u->send_drops, u->recv_errors, u->truncated, u->pc.hits, u->pc.misses, u->pc.entries, (double)u->pc.bytes, u->pc.inserts};
  CHECK(napi_create_array_with_length(env, 8, &arr));
  for (uint32_t k = 0; k < 8; k++) {
    CHECK(napi_create_double(env, vals[k], &v));
    CHECK(napi_set_element(env, arr, k, v));
  }
  return arr;
}

/* close(handle): idempotent; the port is released before it returns. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  udp_t *u = handle_arg(env, info, argv, 1);
  if (u == NULL) {
    napi_throw_type_error(env, "ERR_NATIVE_UDP", "close: bad arguments");
    return NULL;
  }
  shut(u, 1);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"port", NULL, js_port, NULL, NULL, NULL, napi_enumerable, NULL},
      {"peer", NULL, js_peer, NULL, NULL, NULL, napi_enumerable, NULL},
      {"stats", NULL, js_stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"cache", NULL, js_cache, NULL, NULL, NULL, napi_enumerable, NULL},
      {"flush", NULL, js_flush, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_value batch;
  CHECK(napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  CHECK(napi_create_int32(env, BATCH, &batch));
  CHECK(napi_set_named_property(env, exports, "batch", batch));
  return exports;
}

NAPI_MODULE(hostwarden_udp, init)
