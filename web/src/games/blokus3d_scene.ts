/**
 * The Blokus 3D board in three.js: the 10x10 base, the structure's footprint and its height-limit
 * envelope, the placed cubes by colour, the ghost of the selected piece and tinted legal spots.
 *
 * Board square (x, y) at height z is the unit cube centred on (x - 4.5, z + 0.5, 4.5 - y): rank 1 is
 * nearest the viewer at the start.  The table (everything but camera and lights) turns about the
 * vertical axis like the game's turntable; the camera orbits with the pointer (OrbitControls).
 * Frames are drawn on demand only, so an idle page costs nothing.
 */

import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import type { BoardRenderer, SceneData } from "./blokus3d_board";
import { snapAxis } from "./blokus3d_board";
import { COLOUR_HEX, type Cube, FILES } from "./blokus3d_pieces";
import { LETTER_COLOUR } from "./blokus3d_play";
import { MOVE_MS, countAnimation, reducedMotion } from "./motion";

const CUBE = 0.94;
const TURN_MS = 350;

/** True if this browser can give a WebGL context (headless Chromium usually can, via SwiftShader). */
export function webglAvailable(): boolean {
  try {
    const canvas = document.createElement("canvas");
    const gl = canvas.getContext("webgl2") ?? canvas.getContext("webgl");
    if (!gl) return false;
    (gl as WebGLRenderingContext).getExtension("WEBGL_lose_context")?.loseContext();
    return true;
  } catch {
    return false;
  }
}

function centre(x: number, y: number, z: number): THREE.Vector3 {
  return new THREE.Vector3(x - 4.5, z + 0.5, 4.5 - y);
}

function labelSprite(text: string): THREE.Sprite {
  const canvas = document.createElement("canvas");
  canvas.width = 64;
  canvas.height = 64;
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#4a5566";
  g.font = "bold 40px system-ui, sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.fillText(text, 32, 34);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: texture, depthWrite: false }));
  sprite.scale.set(0.55, 0.55, 1);
  return sprite;
}

/** The surface bounding the columns' height limits: each cell's ceiling and the walls down to
 * lower neighbours, so the envelope reads as one terraced shape. */
function envelopeGeometry(limits: number[][]): THREE.BufferGeometry {
  const pos: number[] = [];
  const quad = (a: number[], b: number[], c: number[], d: number[]): void => {
    pos.push(...a, ...b, ...c, ...a, ...c, ...d);
  };
  const lim = (x: number, y: number): number => limits[y]?.[x] ?? 0;
  for (let y = 0; y < 10; y++) {
    for (let x = 0; x < 10; x++) {
      const h = lim(x, y);
      if (!h) continue;
      const x0 = x - 5;
      const x1 = x - 4;
      const z0 = 5 - y;
      const z1 = 4 - y;
      quad([x0, h, z0], [x1, h, z0], [x1, h, z1], [x0, h, z1]);
      const walls: Array<[number, number, number[], number[]]> = [
        [x, y - 1, [x0, 0, z0], [x1, 0, z0]],
        [x, y + 1, [x1, 0, z1], [x0, 0, z1]],
        [x - 1, y, [x0, 0, z1], [x0, 0, z0]],
        [x + 1, y, [x1, 0, z0], [x1, 0, z1]],
      ];
      for (const [nx, ny, a, b] of walls) {
        const low = lim(nx, ny);
        if (low >= h) continue;
        quad([a[0], low, a[2]], [b[0], low, b[2]], [b[0], h, b[2]], [a[0], h, a[2]]);
      }
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(pos, 3));
  geometry.computeVertexNormals();
  return geometry;
}

export class ThreeBoard implements BoardRenderer {
  readonly element: HTMLElement;
  readonly kind = "3d" as const;
  onHover: (square: [number, number] | null) => void = () => {};
  onPick: (square: [number, number]) => void = () => {};

  private renderer: THREE.WebGLRenderer;
  private scene = new THREE.Scene();
  private camera = new THREE.PerspectiveCamera(40, 1, 0.1, 100);
  private controls: OrbitControls;
  private table = new THREE.Group();
  private structure = new THREE.Group();
  private pieces = new THREE.Group();
  private overlay = new THREE.Group();
  private pickables: THREE.Object3D[] = [];
  private cubeGeometry = new THREE.BoxGeometry(CUBE, CUBE, CUBE);
  private edgeGeometry = new THREE.EdgesGeometry(this.cubeGeometry);
  private materials = new Map<string, THREE.Material>();
  private disposables: Array<{ dispose(): void }> = [];
  private limitsKey = "";
  private piecesKey = "";
  private quarter = 0;
  private turnFrom = 0;
  private turnStart = 0;
  private frame = 0;
  /** The last piece's cubes falling into place, with their resting heights. */
  private dropping: Array<[THREE.Mesh, number]> = [];
  private dropStart = 0;
  private raycaster = new THREE.Raycaster();
  private down: { x: number; y: number } | null = null;
  private resize: ResizeObserver;
  private listeners: Array<[string, EventListener]> = [];

  constructor() {
    this.element = document.createElement("div");
    this.element.className = "b3-scene";
    this.renderer = new THREE.WebGLRenderer({ antialias: true, alpha: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.domElement.setAttribute("aria-hidden", "true");
    this.element.append(this.renderer.domElement);

    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(4, 12, 7);
    this.scene.add(sun);
    const fill = new THREE.DirectionalLight(0xffffff, 0.5);
    fill.position.set(-6, 4, -5);
    this.scene.add(fill);

    this.table.add(this.structure, this.pieces, this.overlay);
    this.scene.add(this.table);
    this.buildBase();

    this.camera.position.set(0, 13.5, 12.5);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.set(0, 0.6, 0.4);
    this.controls.minDistance = 6;
    this.controls.maxDistance = 30;
    this.controls.maxPolarAngle = Math.PI / 2 - 0.05;
    this.controls.enablePan = false;
    this.controls.update();
    this.controls.addEventListener("change", () => this.requestFrame());

    const canvas = this.renderer.domElement;
    this.listen(canvas, "pointermove", (e) => this.pointerMove(e as PointerEvent));
    this.listen(canvas, "pointerdown", (e) => {
      const p = e as PointerEvent;
      this.down = { x: p.clientX, y: p.clientY };
    });
    this.listen(canvas, "pointerup", (e) => this.pointerUp(e as PointerEvent));
    this.listen(canvas, "pointerleave", () => this.onHover(null));
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(this.element);
  }

  private listen(target: EventTarget, type: string, fn: EventListener): void {
    target.addEventListener(type, fn);
    this.listeners.push([type, fn]);
  }

  private material(name: string, make: () => THREE.Material): THREE.Material {
    let m = this.materials.get(name);
    if (!m) {
      m = make();
      this.materials.set(name, m);
    }
    return m;
  }

  private buildBase(): void {
    const base = new THREE.Mesh(
      new THREE.BoxGeometry(11.2, 0.3, 11.2),
      new THREE.MeshStandardMaterial({ color: 0xc9b48f, roughness: 0.85 }),
    );
    base.position.y = -0.16;
    this.disposables.push(base.geometry, base.material as THREE.Material);
    const grid = new THREE.GridHelper(10, 10, 0x8a7a5c, 0x8a7a5c);
    grid.position.y = 0.002;
    (grid.material as THREE.Material).transparent = true;
    (grid.material as THREE.Material).opacity = 0.55;
    this.disposables.push(grid.geometry, grid.material as THREE.Material);
    this.table.add(base, grid);
    for (let i = 0; i < 10; i++) {
      const file = labelSprite(FILES[i]);
      // Standing above the base (a sprite is centred on its position): sunk in it, the letters'
      // lower part was hidden and g, j read as a, i.
      file.position.set(i - 4.5, 0.32, 5.35);
      const rank = labelSprite(String(i + 1));
      rank.position.set(-5.35, 0.32, 4.5 - i);
      for (const sprite of [file, rank]) {
        this.disposables.push(sprite.material.map!, sprite.material);
        this.table.add(sprite);
      }
    }
  }

  private clear(group: THREE.Group, disposeGeometry: boolean): void {
    for (const child of [...group.children]) {
      group.remove(child);
      if (disposeGeometry && (child instanceof THREE.Mesh || child instanceof THREE.LineSegments)) {
        child.geometry.dispose();
      }
    }
  }

  private buildStructure(limits: number[][]): void {
    this.clear(this.structure, true);
    this.pickables = [];
    const tileGeometry = new THREE.PlaneGeometry(0.98, 0.98);
    tileGeometry.rotateX(-Math.PI / 2);
    const top = Math.max(1, ...limits.flat());
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 10; x++) {
        const h = limits[y][x];
        if (!h) continue;
        const shade = 0.93 - (0.28 * h) / top;
        const tile = new THREE.Mesh(
          tileGeometry.clone(),
          this.material(`tile${h}`, () => new THREE.MeshStandardMaterial({ color: new THREE.Color(shade, shade, shade * 1.04), roughness: 0.9 })),
        );
        tile.position.copy(centre(x, y, 0)).setY(0.006);
        tile.userData = { x, y };
        this.structure.add(tile);
        this.pickables.push(tile);
      }
    }
    tileGeometry.dispose();
    const envelope = envelopeGeometry(limits);
    const shell = new THREE.Mesh(
      envelope,
      this.material("envelope", () =>
        new THREE.MeshBasicMaterial({ color: 0x6b8cc7, transparent: true, opacity: 0.1, depthWrite: false, side: THREE.DoubleSide }),
      ),
    );
    const outline = new THREE.LineSegments(
      new THREE.EdgesGeometry(envelope, 1),
      this.material("envelopeEdge", () => new THREE.LineBasicMaterial({ color: 0x34508f, transparent: true, opacity: 0.75 })),
    );
    shell.renderOrder = 2;
    outline.renderOrder = 2;
    this.structure.add(shell, outline);
  }

  private cubeMaterial(colour: string, variant: "solid" | "last" | "ghost"): THREE.Material {
    return this.material(`${colour}:${variant}`, () => {
      const color = COLOUR_HEX[colour] ?? 0x888888;
      if (variant === "ghost") {
        return new THREE.MeshStandardMaterial({
          color,
          emissive: color,
          emissiveIntensity: 0.9,
          transparent: true,
          opacity: 0.62,
          depthWrite: false,
        });
      }
      return new THREE.MeshStandardMaterial({
        color,
        roughness: 0.45,
        emissive: variant === "last" ? 0xffffff : 0x000000,
        emissiveIntensity: variant === "last" ? 0.18 : 0,
      });
    });
  }

  private addCube(group: THREE.Group, [x, y, z]: Cube, colour: string, variant: "solid" | "last" | "ghost"): THREE.Mesh {
    const mesh = new THREE.Mesh(this.cubeGeometry, this.cubeMaterial(colour, variant));
    mesh.position.copy(centre(x, y, z));
    mesh.userData = { x, y };
    const edges = new THREE.LineSegments(
      this.edgeGeometry,
      this.material(`edge:${variant}`, () =>
        new THREE.LineBasicMaterial({
          color: variant === "ghost" ? 0xffffff : variant === "last" ? 0xfff6c8 : 0x1d2430,
          transparent: true,
          opacity: variant === "solid" ? 0.55 : 0.95,
          // The ghost's outline shows through the cubes in front of it, so it is never lost.
          depthTest: variant !== "ghost",
        }),
      ),
    );
    mesh.add(edges);
    if (variant === "ghost") {
      mesh.renderOrder = 3;
      edges.renderOrder = 4;
    }
    group.add(mesh);
    return mesh;
  }

  render(data: SceneData): void {
    const limitsKey = JSON.stringify(data.limits);
    if (limitsKey !== this.limitsKey) {
      this.limitsKey = limitsKey;
      this.buildStructure(data.limits);
      this.piecesKey = "";
    }
    const piecesKey = JSON.stringify([data.stacks, data.last]);
    if (piecesKey !== this.piecesKey) {
      // The placed cubes change once a move; the ghost and spots change with the pointer.
      this.piecesKey = piecesKey;
      this.clear(this.pieces, false);
      this.pickables = this.pickables.filter((o) => o.parent === this.structure);
      const last = new Set(data.last.map((c) => c.join(",")));
      const dropping: THREE.Mesh[] = [];
      for (let y = 0; y < 10; y++) {
        for (let x = 0; x < 10; x++) {
          const stack = data.stacks[y][x];
          for (let z = 0; z < stack.length; z++) {
            const colour = LETTER_COLOUR[stack[z]] ?? "grey";
            const variant = last.has(`${x},${y},${z}`) ? "last" : "solid";
            const mesh = this.addCube(this.pieces, [x, y, z], colour, variant);
            this.pickables.push(mesh);
            if (variant === "last") dropping.push(mesh);
          }
        }
      }
      if (data.drop && dropping.length && !reducedMotion()) {
        this.dropping = dropping.map((mesh) => [mesh, mesh.position.y]);
        this.dropStart = performance.now();
        countAnimation();
      }
    }
    this.clear(this.overlay, false);
    if (data.spotColour) {
      const spotGeometry = this.spotGeometry();
      const spotMaterial = this.material(`spot:${data.spotColour}`, () =>
        new THREE.MeshBasicMaterial({ color: COLOUR_HEX[data.spotColour!] ?? 0x888888, transparent: true, opacity: 0.38, depthWrite: false }),
      );
      for (const [x, y] of data.spots) {
        const spot = new THREE.Mesh(spotGeometry, spotMaterial);
        spot.position.copy(centre(x, y, data.stacks[y][x].length)).setY(data.stacks[y][x].length + 0.012);
        spot.renderOrder = 1;
        this.overlay.add(spot);
      }
    }
    if (data.ghost) {
      for (const cube of data.ghost.cubes) this.addCube(this.overlay, cube, data.ghost.colour, "ghost");
    }
    this.requestFrame();
  }

  private spotGeom: THREE.PlaneGeometry | null = null;

  private spotGeometry(): THREE.PlaneGeometry {
    if (!this.spotGeom) {
      this.spotGeom = new THREE.PlaneGeometry(0.7, 0.7);
      this.spotGeom.rotateX(-Math.PI / 2);
    }
    return this.spotGeom;
  }

  turn(quarters: number): void {
    this.turnFrom = this.table.rotation.y;
    this.quarter += quarters;
    this.turnStart = performance.now();
    this.requestFrame();
  }

  tilt(steps: number): void {
    const offset = this.camera.position.clone().sub(this.controls.target);
    const spherical = new THREE.Spherical().setFromVector3(offset);
    spherical.phi = Math.min(this.controls.maxPolarAngle, Math.max(0.05, spherical.phi - steps * 0.18));
    offset.setFromSpherical(spherical);
    this.camera.position.copy(this.controls.target).add(offset);
    this.controls.update();
    this.requestFrame();
  }

  topView(): void {
    const distance = this.camera.position.distanceTo(this.controls.target);
    this.camera.position.set(this.controls.target.x, this.controls.target.y + distance, this.controls.target.z + 0.01);
    this.controls.update();
    this.requestFrame();
  }

  screenAxes(): { up: [number, number]; right: [number, number] } {
    // The camera's forward and right vectors on the ground, expressed in the table's frame.
    const forward = new THREE.Vector3();
    this.camera.getWorldDirection(forward);
    const right = new THREE.Vector3().crossVectors(forward, this.camera.up).normalize();
    if (Math.abs(forward.y) > 0.99) forward.copy(this.camera.up).applyQuaternion(this.camera.quaternion);
    const angle = -this.quarter * (Math.PI / 2);
    const toBoard = (v: THREE.Vector3): [number, number] => {
      const w = v.clone().applyAxisAngle(new THREE.Vector3(0, 1, 0), angle);
      return snapAxis(w.x, -w.z);
    };
    return { up: toBoard(forward), right: toBoard(right) };
  }

  private fit(): void {
    const width = this.element.clientWidth;
    const height = this.element.clientHeight;
    if (!width || !height) return;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    // Keep the whole board in view on narrow (phone) screens.
    this.camera.fov = width < height ? 55 : 40;
    this.camera.updateProjectionMatrix();
    this.requestFrame();
  }

  private requestFrame(): void {
    if (!this.frame) this.frame = requestAnimationFrame((now) => this.draw(now));
  }

  private draw(now: number): void {
    this.frame = 0;
    const target = this.quarter * (Math.PI / 2);
    if (this.table.rotation.y !== target) {
      const t = Math.min(1, (now - this.turnStart) / TURN_MS);
      const ease = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      this.table.rotation.y = t >= 1 ? target : this.turnFrom + (target - this.turnFrom) * ease;
      if (t < 1) this.requestFrame();
    }
    if (this.dropping.length) {
      const t = Math.min(1, Math.max(0, (now - this.dropStart) / MOVE_MS));
      const lift = 2.5 * (1 - t * t); // falls, faster and faster
      for (const [mesh, rest] of this.dropping) mesh.position.y = rest + lift;
      if (t < 1) this.requestFrame();
      else this.dropping = [];
    }
    this.renderer.render(this.scene, this.camera);
  }

  private pick(event: PointerEvent): [number, number] | null {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(
      ((event.clientX - rect.left) / rect.width) * 2 - 1,
      -((event.clientY - rect.top) / rect.height) * 2 + 1,
    );
    this.raycaster.setFromCamera(ndc, this.camera);
    const hit = this.raycaster.intersectObjects(this.pickables, false)[0];
    if (!hit) return null;
    const { x, y } = hit.object.userData as { x: number; y: number };
    return [x, y];
  }

  private pointerMove(event: PointerEvent): void {
    if (this.down && event.buttons) return; // dragging: the camera orbits
    this.onHover(this.pick(event));
  }

  private pointerUp(event: PointerEvent): void {
    const down = this.down;
    this.down = null;
    if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > 6) return;
    const square = this.pick(event);
    if (square) this.onPick(square);
  }

  destroy(): void {
    cancelAnimationFrame(this.frame);
    this.resize.disconnect();
    for (const [type, fn] of this.listeners) this.renderer.domElement.removeEventListener(type, fn);
    this.controls.dispose();
    this.clear(this.pieces, false);
    this.clear(this.overlay, false);
    this.clear(this.structure, true);
    this.cubeGeometry.dispose();
    this.edgeGeometry.dispose();
    this.spotGeom?.dispose();
    for (const m of this.materials.values()) m.dispose();
    for (const d of this.disposables) d.dispose();
    this.renderer.dispose();
    this.renderer.forceContextLoss();
    this.element.remove();
  }
}
