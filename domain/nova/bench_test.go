package nova

import (
	"fmt"
	"testing"
)

// BenchmarkDecide: the cost of one image+flavor verdict, the unit of every
// audit over a fleet's servers.
func BenchmarkDecide(b *testing.B) {
	f := Flavor{Name: "w1", ExtraSpecs: map[string]string{"hw:tpm_version": "2.0", "hw:cpu_policy": "dedicated", "hw:tpm_secret_security": "host"}}
	i := Image{Name: "win11", Properties: map[string]string{"hw_tpm_model": "tpm-crb", "os_distro": "windows", "hw_machine_type": "q35"}}
	for b.Loop() {
		Decide(f, i, Gazpacho)
	}
}

// BenchmarkImageConflicts: 200 images against 100 vTPM flavors.
func BenchmarkImageConflicts(b *testing.B) {
	var imgs []CloudImage
	var plans []ObjectPlan
	for n := 0; n < 200; n++ {
		img := CloudImage{ID: fmt.Sprint(n), Image: Image{Name: fmt.Sprint("img", n), Properties: map[string]string{"os_distro": "windows"}}}
		set, _, _ := PlanImageSet(img.Properties, ImageRequest{Windows: true})
		imgs = append(imgs, img)
		plans = append(plans, ObjectPlan{Changes: Diff(img.Name, img.ID, img.Properties, set, nil)})
	}
	var fls []CloudFlavor
	for n := 0; n < 100; n++ {
		v := "2.0"
		if n%10 == 0 {
			v = "1.2"
		}
		fls = append(fls, CloudFlavor{ID: fmt.Sprint(n), Flavor: Flavor{Name: fmt.Sprint("f", n), ExtraSpecs: map[string]string{"hw:tpm_version": v}}})
	}
	for b.Loop() {
		if len(ImageConflicts(imgs, plans, fls, Zed)) != 200*10 {
			b.Fatal("conflict count")
		}
	}
}
