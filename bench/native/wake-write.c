/*
 * The native floor under bench/wake-floor.ts (issue 16): what one thread that
 * wakes every 20 ms and writes one frame costs this machine when no runtime
 * stands between it and the kernel. One sleep per frame (clock_nanosleep to
 * an absolute deadline), then optionally one write(2) of 900 bytes (a
 * pipecat-eval audio message's size) to a loopback TCP peer with TCP_NODELAY,
 * as the pacer thread's sockets are. The peer is a child process that reads
 * and discards, so its work is not counted.
 *
 *   bench/wake-floor.ts --mode native [--send none|net] [--seconds N]
 *   (it compiles this file with `cc -O2` into a temporary folder and runs it)
 *
 * Prints one JSON line: the thread's CPU (getrusage RUSAGE_THREAD, which the
 * scheduler's runtime count scales), per wake, and how late it woke. Linux.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A loopback TCP connection to a child that reads and discards; -1 if it cannot be made. */
static int connect_sink(void) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) || listen(listener, 1) ||
      getsockname(listener, (struct sockaddr *)&addr, &len))
    return -1;
  if (fork() == 0) {
    int peer = accept(listener, NULL, NULL);
    char buf[65536];
    while (read(peer, buf, sizeof buf) > 0) {
    }
    _exit(0);
  }
  close(listener);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one))
    return -1;
  return fd;
}

int main(int argc, char **argv) {
  const char *send = argc > 1 ? argv[1] : "none";
  int seconds = argc > 2 ? atoi(argv[2]) : 15;
  if ((strcmp(send, "none") && strcmp(send, "net")) || seconds <= 0) {
    fprintf(stderr, "usage: wake-write none|net SECONDS\n");
    return 2;
  }
  int fd = strcmp(send, "net") == 0 ? connect_sink() : -2;
  if (fd == -1) {
    perror("loopback connection");
    return 1;
  }
  char frame[900];
  memset(frame, 7, sizeof frame);
  int wakes = seconds * 50;
  double *late = malloc(sizeof(double) * wakes);
  double t0 = now_ms() + 1000, cpu0 = 0, wall0 = 0;
  /* Wake 0 (the first second: paging in, connecting) is not counted. */
  for (int k = 0; k <= wakes; k++) {
    double at = t0 + k * 20.0;
    struct timespec deadline = {(time_t)(at / 1e3), (long)((at - (time_t)(at / 1e3) * 1e3) * 1e6)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0) {
    }
    double woke = now_ms() - at;
    if (fd >= 0 && write(fd, frame, sizeof frame) != (ssize_t)sizeof frame) {
      perror("write");
      return 1;
    }
    if (k == 0) {
      cpu0 = cpu_ms();
      wall0 = now_ms();
    } else
      late[k - 1] = woke;
  }
  double cpu = cpu_ms() - cpu0, span = now_ms() - wall0;
  qsort(late, wakes, sizeof(double), by_value);
  printf("{\"mode\":\"native\",\"send\":\"%s\",\"wakes\":%d,\"late_p50_ms\":%.3f,\"late_p99_ms\":%.3f,\"late_max_ms\":%.3f,"
         "\"thread_cpu_pct\":%.3f,\"thread_cpu_us_per_wake\":%.0f}\n",
         send, wakes, late[wakes / 2], late[(int)(wakes * 0.99)], late[wakes - 1], 100 * cpu / span, 1000 * cpu / wakes);
  if (fd >= 0) close(fd);
  while (wait(NULL) > 0) {
  }
  return 0;
}
