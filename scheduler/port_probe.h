#ifndef VERNIER_SCHEDULER_PORT_PROBE_H_
#define VERNIER_SCHEDULER_PORT_PROBE_H_

namespace vernier::scheduler {

// Whether another program of this machine uses a TCP port: the I/O half of
// port allocation (PortAllocator is the pure half).
class PortProbe {
 public:
  // True when a TCP socket can bind the port on every interface now.
  static bool IsFree(int port);
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_PORT_PROBE_H_
