#ifndef VERNIER_TUNER_STORAGE_STUDY_LOCK_H_
#define VERNIER_TUNER_STORAGE_STUDY_LOCK_H_

namespace vernier::storage {

// One study's lock across every process sharing a store (Storage::LockStudy),
// held until this object is destroyed.
class StudyLock {
 public:
  StudyLock() = default;
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;
  virtual ~StudyLock() = default;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_STUDY_LOCK_H_
