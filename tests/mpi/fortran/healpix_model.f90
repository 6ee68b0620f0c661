! foehn_set_domain_healpix from `use foehn` (tests/python/test_healpix.py,
! tests/mpi/fortran/healpix.xml): a level-2 nested domain whose cells are
! dealt round the ranks (cell g on rank mod(g, nprocs)) and listed in
! reverse order, level and scheme from the XML; and a level-1 ring domain
! given both in the call and the XML, of which the ranks hold the cells
! with mod(g, 3) /= 0 (the rest is fill). tas(g) = 1000 step + 0.5 g.
!
! usage: healpix_model <healpix.xml>
program healpix_model
  use, intrinsic :: iso_c_binding, only: c_int64_t
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use foehn
  implicit none

  integer, parameter :: level = 2, reg_level = 1, nsteps = 3
  character(len=256) :: config
  integer :: ierr, comm, rank, nprocs, k, step
  integer(c_int64_t), allocatable :: cells(:), reg(:)
  type(foehn_context) :: ctx

  call MPI_Init(ierr)
  call get_command_argument(1, config)
  call foehn_init("healpix_model", trim(config), MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)

  cells = [(int(k, c_int64_t), k = 12 * 4**level - 1, 0, -1)]
  cells = pack(cells, mod(cells, int(nprocs, c_int64_t)) == rank)
  reg = [(int(k, c_int64_t), k = 0, 12 * 4**reg_level - 1)]
  reg = pack(reg, mod(reg, 3_c_int64_t) /= 0 .and. mod(reg, int(nprocs, c_int64_t)) == rank)

  call foehn_context_open("hp", comm, ctx)
  call foehn_set_domain_healpix(ctx, "hp", cells)
  call foehn_set_domain_healpix(ctx, "reg", reg, refinement_level=reg_level, indexing_scheme="ring")
  call foehn_close_definition(ctx)
  do step = 1, nsteps
    call foehn_update_calendar(ctx, step)
    call foehn_write(ctx, "tas", 1000.0_real64 * step + 0.5_real64 * real(cells, real64))
    call foehn_write(ctx, "reg_tas", 1000.0_real64 * step + 0.5_real64 * real(reg, real64))
  end do
  call foehn_context_close(ctx)
  call foehn_finalize()
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', "healpix_model: OK"
end program healpix_model
