package runner

import "fmt"

// CheckMembers checks what every family asks of a group's members: at
// most limit of them, each with an id that is neither empty nor taken by
// another. Its errors are [Invalid]'s, naming the member and field.
func CheckMembers[M any](ms []M, limit int, id func(*M) string) error {
	if len(ms) > limit {
		return Invalid("", "members", "%d members, more than %d", len(ms), limit)
	}
	ids := make(map[string]bool, len(ms))
	for i := range ms {
		switch m := id(&ms[i]); {
		case m == "":
			return Invalid("", fmt.Sprintf("members[%d].member_id", i), "empty")
		case ids[m]:
			return Invalid(m, "member_id", "appears twice")
		default:
			ids[m] = true
		}
	}
	return nil
}
