package hostcheck

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// accounts reads /etc/passwd and /etc/group below the root. Nova asks NSS
// (pwd.getpwnam); local files are what a compute host's swtpm user lives
// in, and what a mounted host image has.
type accounts struct {
	users  map[string]int // name -> uid
	groups map[string]int // name -> gid
	byUID  map[int]string
	byGID  map[int]string
}

func loadAccounts(root string) accounts {
	a := accounts{users: map[string]int{}, groups: map[string]int{}, byUID: map[int]string{}, byGID: map[int]string{}}
	readColonFile(root, "/etc/passwd", func(f []string) {
		if len(f) > 2 {
			if id, err := strconv.Atoi(f[2]); err == nil {
				a.users[f[0]], a.byUID[id] = id, f[0]
			}
		}
	})
	readColonFile(root, "/etc/group", func(f []string) {
		if len(f) > 2 {
			if id, err := strconv.Atoi(f[2]); err == nil {
				a.groups[f[0]], a.byGID[id] = id, f[0]
			}
		}
	})
	return a
}

func readColonFile(root, path string, each func([]string)) {
	data, err := readFile(root, path)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		each(strings.Split(l, ":"))
	}
}

func (a accounts) userName(uid int) string {
	if n, ok := a.byUID[uid]; ok {
		return n
	}
	return strconv.Itoa(uid)
}

func (a accounts) groupName(gid int) string {
	if n, ok := a.byGID[gid]; ok {
		return n
	}
	return strconv.Itoa(gid)
}
