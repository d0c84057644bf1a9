package rest

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Config says how to reach the API server.
type Config struct {
	// Host is the server's URL, https://host:port.
	Host string
	// CAData is the PEM bundle that signs the server's certificate; none
	// means the system's roots.
	CAData []byte
	// Insecure skips verifying the server's certificate.
	Insecure bool
	// Token is a bearer token; TokenFile, when set, is read instead, and
	// read again when it changes (bound ServiceAccount tokens rotate).
	Token, TokenFile string
	// CertData and KeyData are a client certificate and key, PEM.
	CertData, KeyData []byte
}

// In-cluster credentials, mounted into every pod that automounts them.
const (
	serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// LoadConfig returns how to reach the API server: from inside a pod when
// KUBERNETES_SERVICE_HOST is set, else from the KUBECONFIG files. It
// returns nil and no error when neither is there: the supervisor then runs
// standalone.
func LoadConfig() (*Config, error) {
	if host := os.Getenv("KUBERNETES_SERVICE_HOST"); host != "" {
		return inCluster(host, os.Getenv("KUBERNETES_SERVICE_PORT"))
	}
	if path := os.Getenv("KUBECONFIG"); path != "" {
		return loadKubeconfig(filepath.SplitList(path))
	}
	return nil, nil
}

func inCluster(host, port string) (*Config, error) {
	if port == "" {
		port = "443"
	}
	ca, err := os.ReadFile(filepath.Join(serviceAccountDir, "ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("in-cluster config: %w", err)
	}
	token := filepath.Join(serviceAccountDir, "token")
	if _, err := os.Stat(token); err != nil {
		return nil, fmt.Errorf("in-cluster config: %w", err)
	}
	return &Config{Host: "https://" + net.JoinHostPort(host, port), CAData: ca, TokenFile: token}, nil
}

// kubeconfig is the part of a kubeconfig file that LoadConfig reads.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Contexts       []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
	Clusters []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server   string `json:"server"`
			CA       string `json:"certificate-authority"`
			CAData   string `json:"certificate-authority-data"`
			Insecure bool   `json:"insecure-skip-tls-verify"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			Token     string `json:"token"`
			TokenFile string `json:"tokenFile"`
			Cert      string `json:"client-certificate"`
			CertData  string `json:"client-certificate-data"`
			Key       string `json:"client-key"`
			KeyData   string `json:"client-key-data"`
			Exec      any    `json:"exec"`
			Auth      any    `json:"auth-provider"`
		} `json:"user"`
	} `json:"users"`
}

// loadKubeconfig reads the current context of the first file that names
// one, looking its cluster and user up in all the files, in order (as
// kubectl merges them). Exec plugins and auth providers are not supported:
// tfsupervisor talks to the API server from pods, with their token.
func loadKubeconfig(paths []string) (*Config, error) {
	var files []kubeconfig
	var dirs []string
	current := ""
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("read kubeconfig: %w", err)
		}
		var k kubeconfig
		if err := yaml.Unmarshal(b, &k); err != nil {
			return nil, fmt.Errorf("read kubeconfig %s: %w", p, err)
		}
		if current == "" {
			current = k.CurrentContext
		}
		files, dirs = append(files, k), append(dirs, filepath.Dir(p))
	}
	if current == "" {
		return nil, fmt.Errorf("kubeconfig %s: no current-context", strings.Join(paths, string(filepath.ListSeparator)))
	}
	cfg := &Config{}
	var clusterName, userName string
	found := 0
	for _, k := range files {
		for _, c := range k.Contexts {
			if c.Name == current && found == 0 {
				clusterName, userName, found = c.Context.Cluster, c.Context.User, 1
			}
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("kubeconfig: context %q not found", current)
	}
	var err error
	read := func(inline, file, dir string) []byte {
		if err != nil {
			return nil
		}
		if inline != "" {
			var b []byte
			b, err = base64.StdEncoding.DecodeString(inline)
			return b
		}
		if file == "" {
			return nil
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		var b []byte
		b, err = os.ReadFile(file)
		return b
	}
	cluster, user := false, false
	for i, k := range files {
		for _, c := range k.Clusters {
			if c.Name == clusterName && !cluster {
				cluster = true
				cfg.Host, cfg.Insecure = c.Cluster.Server, c.Cluster.Insecure
				cfg.CAData = read(c.Cluster.CAData, c.Cluster.CA, dirs[i])
			}
		}
		for _, u := range k.Users {
			if u.Name != userName || user {
				continue
			}
			user = true
			if u.User.Exec != nil || u.User.Auth != nil {
				return nil, fmt.Errorf("kubeconfig user %q: exec plugins and auth providers are not supported; use a token or a client certificate", userName)
			}
			cfg.Token, cfg.TokenFile = u.User.Token, u.User.TokenFile
			if cfg.TokenFile != "" && !filepath.IsAbs(cfg.TokenFile) {
				cfg.TokenFile = filepath.Join(dirs[i], cfg.TokenFile)
			}
			cfg.CertData = read(u.User.CertData, u.User.Cert, dirs[i])
			cfg.KeyData = read(u.User.KeyData, u.User.Key, dirs[i])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	if !cluster || cfg.Host == "" {
		return nil, fmt.Errorf("kubeconfig: cluster %q not found or has no server", clusterName)
	}
	return cfg, nil
}
