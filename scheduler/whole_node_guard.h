#ifndef VERNIER_SCHEDULER_WHOLE_NODE_GUARD_H_
#define VERNIER_SCHEDULER_WHOLE_NODE_GUARD_H_

namespace vernier::scheduler {

// Keeps the nodes whose GPUs are all open for the waiting gangs that need
// them (GangAllocatorOptions::keep_whole_nodes).
//
// A replica as large as the largest node can only start on a node that is
// wholly open, and such nodes are rare on a busy cluster: they appear only
// when the last gang on a node ends. Best fit already puts a small replica
// on the fullest node it fits on, so a small gang takes GPUs of a wholly
// open node only when no node with some GPUs taken has room for it; then it
// breaks the hole that an 8-GPU replica was waiting for, for a gang that had
// plenty of other chances. The guard refuses that while some waiting gang
// needs whole nodes: the small gang waits for a partly used node instead.
// Small gangs wait far less than their fluid share allows (docs/
// benchmarks.md, "Gang scheduling"), so this moves their slack to the gangs
// that need whole nodes.
//
// It only restricts backfill, never the head of the queue, so no gang
// starves: a small gang kept off whole nodes becomes the head in its turn
// and is placed wherever it fits. Pure logic: no I/O, no clock.
class WholeNodeGuard {
 public:
  // `largest_node`: the GPUs of the largest node.
  explicit WholeNodeGuard(int largest_node);

  // Whether a replica of `gpus` needs a wholly open node of the largest
  // size.
  bool NeedsWholeNode(int gpus) const;
  // A gang whose largest replica asks for `largest_replica` GPUs joins or
  // leaves the queue.
  void Queued(int largest_replica);
  void Dequeued(int largest_replica);
  // Whether a backfilled gang whose largest replica asks for
  // `largest_replica` GPUs may take GPUs of a node with `open` of its
  // `capacity` GPUs open (free and not reserved).
  bool MayTake(int largest_replica, int open, int capacity) const;

  int waiting_for_whole_nodes() const { return waiting_; }

 private:
  int largest_node_;
  // Queued gangs with a replica that needs a whole node.
  int waiting_ = 0;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_WHOLE_NODE_GUARD_H_
