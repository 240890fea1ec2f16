package chstore

// Unexported functions the external tests (package chstore_test, which
// may import chtest) call.
var (
	CheckViewChaining = checkViewChaining
	JudgeChaining     = judgeChaining
)
